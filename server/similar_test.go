package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/server"
)

// similarBody is the part of /api/similar the tests read.
type similarBody struct {
	ID      string `json:"id"`
	K       int    `json:"k"`
	Similar []struct {
		ID          string  `json:"id"`
		Grade       string  `json:"grade"`
		Score       float64 `json:"score"`
		SameCluster bool    `json:"same_cluster"`
		Lists       struct {
			Bands  int `json:"bands"`
			Blocks int `json:"blocks"`
			Pieces int `json:"pieces"`
		} `json:"lists"`
		Evidence struct {
			Duplicate bool `json:"duplicate"`
			Scores    []struct {
				Measure string `json:"measure"`
			} `json:"scores"`
		} `json:"evidence"`
	} `json:"similar"`
}

const beesID = "en/harbor-gazette/library-bees"

// readSimilar decodes an answer of /api/similar, and lists its pages as
// "ID grade".
func readSimilar(t *testing.T, answer string) (similarBody, []string) {
	t.Helper()
	var body similarBody
	if err := json.Unmarshal([]byte(answer), &body); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range body.Similar {
		got = append(got, x.ID+" "+x.Grade)
	}
	return body, got
}

func TestAPISimilar(t *testing.T) {
	s := newServer(t, fixture(t), server.DefaultOptions())
	tests := []struct {
		name  string
		query string
		want  []string // ids and grades, in order
	}{
		{"default k", "id=" + url.QueryEscape(beesID), []string{
			"en/daily-reader/rooftop-hives-reprint copy",
			"en/bee-archive/library-bees copy",
			"en/green-column/plant-a-meadow related",
		}},
		{"k=1", "k=1&id=" + url.QueryEscape(beesID), []string{"en/daily-reader/rooftop-hives-reprint copy"}},
		{"nothing similar", "id=xss", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, s, "GET", "/api/similar?"+tt.query)
			if r.status != http.StatusOK {
				t.Fatalf("status %d (%s), want 200", r.status, r.body)
			}
			body, got := readSimilar(t, r.body)
			for _, x := range body.Similar {
				if len(x.Evidence.Scores) == 0 {
					t.Errorf("%s: no scores in the evidence", x.ID)
				}
				if x.Grade == "copy" && !x.Evidence.Duplicate && !x.SameCluster {
					t.Errorf("%s: a copy neither verified nor clustered", x.ID)
				}
				if x.Lists.Bands+x.Lists.Blocks+x.Lists.Pieces == 0 && !x.SameCluster {
					t.Errorf("%s: on no shared list", x.ID)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("#%d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
			if body.Similar == nil {
				t.Errorf("similar: got null, want a list")
			}
		})
	}
}

func TestAPISimilarErrors(t *testing.T) {
	o := server.DefaultOptions()
	s := newServer(t, fixture(t), o)
	tests := []struct {
		method, target string
		status         int
	}{
		{"GET", "/api/similar", http.StatusBadRequest},
		{"GET", "/api/similar?id=" + url.QueryEscape(beesID) + "&k=0", http.StatusBadRequest},
		{"GET", "/api/similar?id=" + url.QueryEscape(beesID) + "&k=101", http.StatusBadRequest},
		{"GET", "/api/similar?id=" + url.QueryEscape(beesID) + "&k=ten", http.StatusBadRequest},
		{"GET", "/api/similar?id=no-such-page", http.StatusNotFound},
		{"POST", "/api/similar?id=" + url.QueryEscape(beesID), http.StatusBadRequest}, // no body
		{"DELETE", "/api/similar?id=" + url.QueryEscape(beesID), http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		r := do(t, s, tt.method, tt.target)
		if r.status != tt.status {
			t.Errorf("%s %s: got status %d (%s), want %d", tt.method, tt.target, r.status, r.body, tt.status)
			continue
		}
		if msg, _ := decode(t, r.body)["error"].(string); msg == "" {
			t.Errorf("%s %s: got %s, want an error message", tt.method, tt.target, r.body)
		}
	}
}

// TestAPISimilarText: POST /api/similar with a page's text finds the
// page itself and its copies, as copies; a bad body is refused.
func TestAPISimilarText(t *testing.T) {
	s := newServer(t, fixture(t), server.DefaultOptions())
	var doc struct{ Text string }
	if err := json.Unmarshal([]byte(do(t, s, "GET", "/api/doc?id="+url.QueryEscape(beesID)).body), &doc); err != nil || doc.Text == "" {
		t.Fatalf("the page's text: %v", err)
	}
	post := func(body string) response {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, localRequest("POST", "/api/similar", strings.NewReader(body)))
		return response{rec.Code, rec.Header(), rec.Body.String()}
	}
	b, _ := json.Marshal(map[string]any{"text": doc.Text, "k": 3})
	r := post(string(b))
	if r.status != http.StatusOK {
		t.Fatalf("status %d (%s), want 200", r.status, r.body)
	}
	body, got := readSimilar(t, r.body)
	want := []string{beesID + " copy", "en/daily-reader/rooftop-hives-reprint copy", "en/bee-archive/library-bees copy"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") || body.K != 3 || body.ID != "" {
		t.Errorf("similar to the page's text: k %d, id %q, %q; want k 3, no id, %q", body.K, body.ID, got, want)
	}
	for _, bad := range []string{`{"text": ""}`, `{"text": "bees", "k": 101}`, `{"text": 3}`, `not json`} {
		if r := post(bad); r.status != http.StatusBadRequest {
			t.Errorf("POST %s: status %d (%s), want 400", bad, r.status, r.body)
		}
	}
}
