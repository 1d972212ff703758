// Package server is the HTTP back end of "bleve-dedup serve": a JSON API
// over an indexer.Index and a web page, embedded in the binary, that uses
// it.
//
// # API
//
// All endpoints take GET (or HEAD) with URL parameters and answer JSON.
// A bad request gets a 4xx status and {"error": "..."}; a boolean query
// that does not parse also carries "pos" (a byte offset), "expected" and
// "found".
//
//	/api/search?q=QUERY[&syntax=boolean|querystring][&collapse=true][&from=0][&size=10]
//	    [&sort=relevance|newest|oldest][&facets=true][&expand=FACET]
//	    [&site=H][&lang=L][&cluster_size=B][&date=YYYY-MM]
//	    one hit per duplicate cluster (collapse.Searcher), with the
//	    folded members; from and size count clusters; facets counted over
//	    clusters and over documents, 20 values a facet (500 for those
//	    named by expand), cluster sizes in order of size; site, lang,
//	    cluster_size and date narrow the search (values of one facet
//	    OR-ed, facets AND-ed); "parsed" is a boolean query as the parser
//	    grouped it
//	/api/overview           the index at a glance, with example queries
//	    made of the index's own words, each finding pages
//	/api/doc?id=ID          a stored document with its main text and its
//	    nearest copies
//	/api/clusters[?min=2][&from=0][&size=100]
//	    the clusters of at least min members, in creation order
//	/api/cluster?id=CLUSTER (or ?doc=ID)  a cluster's members with the
//	    filter's evidence against the representative
//	/api/compare?a=ID&b=ID  two documents' text aligned word by word (see
//	    Diff), with the filter's verdict, each measure's score with its
//	    threshold
//	/api/ingest             with Options.Ingest: GET the progress of the
//	    ingest running, POST a JSONL or WARC body of pages to index
//	/api/openapi.json       the API in OpenAPI 3.1
//
// /healthz answers while the process runs, /readyz when the index
// answers a search and the store a read; /metrics serves Prometheus
// metrics; Options.Logger gets a line a request with its id
// (X-Request-Id). Facets, sorting by date and the overview read a
// catalog of the store that a request starts walking in the background;
// Close stops it.
//
// The page (/, /app.js, /style.css) shows the overview, searches with
// facets, sort and page numbers, shows a cluster's and a document's page,
// and compares two members of a cluster word by word, all of it kept in
// the URL. docs/server.md describes it.
//
// # Safety
//
// Serve runs the handler on a listener: every answer, net/http's own
// errors included, carries the security headers. Every request must name
// the server in its Host header (Options.AllowedHosts; 421 otherwise),
// which keeps a page of another site whose name was made to resolve to
// this machine (DNS rebinding) from reading answers. Requests that change
// the index (POST /api/ingest, with Options.Ingest) must come from the
// server's own origin when a browser sends them
// (http.CrossOriginProtection, Options.TrustedOrigins), with a type no
// form can send (application/x-ndjson or application/warc), and with
// Ingest.Token as a bearer token, or from a loopback peer through no proxy
// when there is none. Reads need no credential. Requests are bounded: the
// URL query string, the query text and the term searchers it opens
// (Options.MaxQueryBytes, MaxQueryLen, MaxQueryTerms), header size and
// read/write time-outs, search time (Options.SearchTimeout), page size
// (Options.MaxPageSize), the sentences compared
// (Options.MaxCompareSentences), and an ingest's body (Ingest.MaxBytes,
// read as it arrives), idle time and duration (Ingest.IdleTimeout,
// MaxDuration). The page builds its DOM with
// textContent only, links only http(s) URLs, and runs under a
// Content-Security-Policy that allows no inline script; JSON strings have
// <, > and & escaped. docs/security.md has the threat model.
//
// # Caveats
//
// /api/clusters walks every cluster in the store for each request. Member
// lists come from the dedup store, so under the suppress policy they hold
// documents that no search can find (marked "indexed": false).
package server
