package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"github.com/bleve-dedup/bleve-dedup/crawler"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// crawlConfig is the --config file. Omitted fields keep
// crawler.DefaultOptions and relevance.DefaultOptions.
type crawlConfig struct {
	Seeds []string `yaml:"seeds"`
	Topic struct {
		Name        string             `yaml:"name"`
		Profile     string             `yaml:"profile"`  // relevance profile JSON file
		Keywords    map[string]float64 `yaml:"keywords"` // or inline keywords
		TitleWeight *float64           `yaml:"title_weight"`
		Threshold   *float64           `yaml:"threshold"`
	} `yaml:"topic"`
	AllowedHosts   []string       `yaml:"allowed_hosts"`
	MaxDepth       *int           `yaml:"max_depth"`
	MaxPages       *int           `yaml:"max_pages"`
	Workers        *int           `yaml:"workers"`
	Delay          *time.Duration `yaml:"delay"`
	Robots         *bool          `yaml:"robots"`
	ConnectTimeout *time.Duration `yaml:"connect_timeout"`
	ReadTimeout    *time.Duration `yaml:"read_timeout"`
	UserAgent      string         `yaml:"user_agent"`
	Strategy       string         `yaml:"strategy"`     // best-first (default) or breadth-first
	Weights        string         `yaml:"weights"`      // learned (default) or fixed
	WeightsFile    string         `yaml:"weights_file"` // link-scorer state to start from; learnt state is written back. Relative paths are relative to the config file, like topic.profile.
	MaxBytes       *int64         `yaml:"max_bytes"`
	MaxLinks       *int           `yaml:"max_links"`
}

func readCrawlConfig(name string) (*crawlConfig, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	c, err := parseCrawlConfig(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	return c, nil
}

// parseCrawlConfig decodes a config strictly: unknown fields are errors,
// so a misspelt option is not silently ignored.
func parseCrawlConfig(data []byte) (*crawlConfig, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c crawlConfig
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &c, nil
}

// profile builds the topic from the profile file (relative to the config
// file's directory) or the inline keywords.
func (c *crawlConfig) profile(configDir string) (*relevance.Profile, error) {
	o := relevance.DefaultOptions()
	if c.Topic.TitleWeight != nil {
		o.TitleWeight = *c.Topic.TitleWeight
	}
	if c.Topic.Threshold != nil {
		o.Threshold = *c.Topic.Threshold
	}
	switch {
	case c.Topic.Profile != "" && len(c.Topic.Keywords) > 0:
		return nil, errors.New("topic: give profile or keywords, not both")
	case c.Topic.Profile != "":
		name := c.Topic.Profile
		if !filepath.IsAbs(name) {
			name = filepath.Join(configDir, name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("topic: %w", err)
		}
		defer f.Close()
		return relevance.ReadProfile(f, o)
	case len(c.Topic.Keywords) > 0:
		return relevance.NewProfile(c.Topic.Name, c.Topic.Keywords, o)
	}
	return nil, errors.New("topic: give a profile file or keywords")
}

// options maps the config onto crawler.Options with state in stateDir.
func (c *crawlConfig) options(stateDir, configDir string) (crawler.Options, error) {
	o := crawler.DefaultOptions(stateDir)
	o.Seeds = c.Seeds
	o.AllowedHosts = c.AllowedHosts
	setIf(&o.MaxDepth, c.MaxDepth)
	setIf(&o.MaxPages, c.MaxPages)
	setIf(&o.Workers, c.Workers)
	setIf(&o.Delay, c.Delay)
	setIf(&o.Robots, c.Robots)
	setIf(&o.ConnectTimeout, c.ConnectTimeout)
	setIf(&o.ReadTimeout, c.ReadTimeout)
	setIf(&o.MaxBytes, c.MaxBytes)
	setIf(&o.MaxLinks, c.MaxLinks)
	if c.UserAgent != "" {
		o.UserAgent = c.UserAgent
	}
	var err error
	if c.Strategy != "" {
		if o.Strategy, err = crawler.ParseStrategy(c.Strategy); err != nil {
			return o, err
		}
	}
	switch c.Weights {
	case "", "learned":
		o.Learn = true
	case "fixed":
		o.Learn = false
	default:
		return o, fmt.Errorf("weights %q: want learned or fixed", c.Weights)
	}
	if o.Profile, err = c.profile(configDir); err != nil {
		return o, err
	}
	if c.WeightsFile != "" && !filepath.IsAbs(c.WeightsFile) {
		c.WeightsFile = filepath.Join(configDir, c.WeightsFile)
	}
	if c.WeightsFile != "" {
		data, err := os.ReadFile(c.WeightsFile)
		switch {
		case errors.Is(err, os.ErrNotExist): // written at the end
		case err != nil:
			return o, err
		default:
			if o.LinkScorer, err = relevance.NewLinkScorer(o.Profile, relevance.DefaultLinkOptions()); err != nil {
				return o, err
			}
			if err := o.LinkScorer.UnmarshalJSON(data); err != nil {
				return o, fmt.Errorf("weights file %s: %w", c.WeightsFile, err)
			}
		}
	}
	return o, nil
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func newCrawlCmd() *cobra.Command {
	var configFile, dir, logFile string
	cmd := &cobra.Command{
		Use:   "crawl --config crawl.yaml --index DIR [--log FILE]",
		Short: "Crawl the web for a topic and index the relevant pages",
		Long: `crawl fetches pages from the config's seeds, best-first by predicted link
value (seed 003) or breadth-first, scores each page against the topic (seed
004) and indexes the relevant ones into DIR through the near-duplicate
filter, with their relevance in the numeric field "relevance". The crawl
state (frontier, seen URLs, learnt link weights) lives in DIR/crawl: after
SIGINT, the same command continues where it stopped. --log appends one
JSON line per fetched page: {"url","status","depth","link_value",
"relevance","relevant","duplicate_of"?,"error"?}.

Config (YAML; durations like 500ms or 2s):
  seeds: [https://example.com/]
  topic: {profile: topic.json}      # or {name: x, keywords: {word: 1, ...}}
                                    # title_weight (α, 4), threshold (0.4)
  allowed_hosts: [example.com, .example.org]   # default: the seeds' hosts
  max_depth: 10    max_pages: 1000   workers: 4
  delay: 1s        robots: true      connect_timeout: 10s   read_timeout: 10s
  user_agent: bleve-dedup-crawler/1.0
  strategy: best-first              # or breadth-first
  weights: learned                  # or fixed (equal)
  weights_file: weights.json        # start from a training crawl's weights; learnt ones are written back
  max_bytes: 4194304   max_links: 500`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := readCrawlConfig(configFile)
			if err != nil {
				return err
			}
			opts, err := cfg.options(filepath.Join(dir, "crawl"), filepath.Dir(configFile))
			if err != nil {
				return fmt.Errorf("config %s: %w", configFile, err)
			}
			ix, err := indexer.Open(dir, indexer.DefaultOptions())
			if err != nil {
				return err
			}
			defer ix.Close()
			opts.Index = ix
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return err
				}
				defer f.Close()
				enc := json.NewEncoder(f)
				enc.SetEscapeHTML(false)
				var logErr error
				opts.OnPage = chainOnPage(opts.OnPage, func(r crawler.Record) {
					if logErr == nil {
						logErr = enc.Encode(r)
					}
				})
				defer func() {
					if logErr != nil {
						fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: writing log:", logErr)
					}
				}()
			}
			if done := crawlProgress(cmd.ErrOrStderr(), &opts); done != nil {
				defer done()
			}
			c, err := crawler.New(opts)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sum, runErr := c.Run(ctx)
			fmt.Fprintf(cmd.OutOrStdout(),
				"fetched %d, relevant %d, duplicates %d, errors %d, disallowed %d, indexed %d; harvest rate %.3f; %.1f pages/s; %d links left\n",
				sum.Fetched, sum.Relevant, sum.Duplicates, sum.Errors, sum.Disallowed, sum.Indexed,
				sum.HarvestRate(), sum.PagesPerSecond(), sum.Frontier)
			if cfg.WeightsFile != "" && opts.Learn {
				state, err := c.LinkScorer().MarshalJSON()
				if err == nil {
					err = os.WriteFile(cfg.WeightsFile, append(state, '\n'), 0o644)
				}
				if err != nil {
					return fmt.Errorf("weights file: %w", err)
				}
			}
			if errors.Is(runErr, ctx.Err()) && ctx.Err() != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "stopped; run the same command again to continue")
				runErr = nil
			}
			return errors.Join(runErr, c.Close(), ix.Close())
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "crawl config file, YAML (required)")
	cmd.Flags().StringVar(&dir, "index", "", "index directory; the crawl state is kept in DIR/crawl (required)")
	cmd.Flags().StringVar(&logFile, "log", "", "append one JSON line per fetched page to this file")
	cmd.MarkFlagRequired("config")
	cmd.MarkFlagRequired("index")
	return cmd
}

func chainOnPage(a, b func(crawler.Record)) func(crawler.Record) {
	if a == nil {
		return b
	}
	return func(r crawler.Record) { a(r); b(r) }
}

// crawlProgress shows a progress bar when errw is a terminal and returns
// the function that ends it, or nil.
func crawlProgress(errw io.Writer, o *crawler.Options) func() {
	f, ok := errw.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	total := int64(o.MaxPages) // this run's pages are shown against the whole budget
	if total == 0 {
		total = -1
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(errw),
		progressbar.OptionSetDescription("crawling"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("pages"),
		progressbar.OptionClearOnFinish())
	relevant, dups, errs := 0, 0, 0
	o.OnPage = chainOnPage(o.OnPage, func(r crawler.Record) {
		if r.Relevant {
			relevant++
		}
		if r.DuplicateOf != "" {
			dups++
		}
		if r.Err != nil {
			errs++
		}
		bar.Describe(fmt.Sprintf("crawling (this run: %d relevant, %d duplicates, %d errors)", relevant, dups, errs))
		bar.Add(1)
	})
	return func() { bar.Finish() }
}
