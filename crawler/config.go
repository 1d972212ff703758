package crawler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// Config is a crawl configuration file (YAML), as the crawl command reads
// it. Omitted fields keep DefaultOptions and relevance.DefaultOptions;
// durations are written like 500ms or 2s.
type Config struct {
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
	RetryFor       *time.Duration `yaml:"retry_for"`
	ConnectTimeout *time.Duration `yaml:"connect_timeout"`
	ReadTimeout    *time.Duration `yaml:"read_timeout"`
	UserAgent      string         `yaml:"user_agent"`
	Strategy       string         `yaml:"strategy"`     // best-first (default) or breadth-first
	Weights        string         `yaml:"weights"`      // learned (default) or fixed
	WeightsFile    string         `yaml:"weights_file"` // link-scorer state to start from; learnt state is written back. Relative paths are relative to the config file, like topic.profile.
	MaxBytes       *int64         `yaml:"max_bytes"`
	MaxLinks       *int           `yaml:"max_links"`

	dir string // the config file's directory
}

// ReadConfig reads and parses the config file name. Relative paths in
// it (topic.profile, weights_file) are relative to the file's directory.
func ReadConfig(name string) (*Config, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("crawler: config: %w", err)
	}
	c, err := ParseConfig(data, filepath.Dir(name))
	if err != nil {
		return nil, fmt.Errorf("crawler: config %s: %w", name, err)
	}
	return c, nil
}

// ParseConfig decodes a config strictly: unknown fields are errors, so a
// misspelt option is not silently ignored. Relative paths in it are
// relative to dir.
func ParseConfig(data []byte, dir string) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	c := Config{dir: dir}
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if c.WeightsFile != "" && !filepath.IsAbs(c.WeightsFile) {
		c.WeightsFile = filepath.Join(dir, c.WeightsFile)
	}
	return &c, nil
}

// profile builds the topic from the profile file (relative to the config
// file's directory) or the inline keywords.
func (c *Config) profile() (*relevance.Profile, error) {
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
			name = filepath.Join(c.dir, name)
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

// Options maps the config onto Options with the crawl state in stateDir.
// With a weights file that exists, the link scorer starts from its
// weights.
func (c *Config) Options(stateDir string) (Options, error) {
	o, err := c.options(stateDir)
	if err != nil {
		return o, fmt.Errorf("crawler: config: %w", err)
	}
	return o, nil
}

func (c *Config) options(stateDir string) (Options, error) {
	o := DefaultOptions(stateDir)
	if c == nil {
		return o, fmt.Errorf("no config: %w", ErrInvalidOptions)
	}
	o.Seeds = c.Seeds
	o.AllowedHosts = c.AllowedHosts
	setIf(&o.MaxDepth, c.MaxDepth)
	setIf(&o.MaxPages, c.MaxPages)
	setIf(&o.Workers, c.Workers)
	setIf(&o.Delay, c.Delay)
	setIf(&o.Robots, c.Robots)
	setIf(&o.RetryFor, c.RetryFor)
	setIf(&o.ConnectTimeout, c.ConnectTimeout)
	setIf(&o.ReadTimeout, c.ReadTimeout)
	setIf(&o.MaxBytes, c.MaxBytes)
	setIf(&o.MaxLinks, c.MaxLinks)
	if c.UserAgent != "" {
		o.UserAgent = c.UserAgent
	}
	var err error
	if c.Strategy != "" {
		if o.Strategy, err = ParseStrategy(c.Strategy); err != nil {
			return o, err
		}
	}
	switch c.Weights {
	case "", "learned":
		o.Learn = true
	case "fixed":
		o.Learn = false
	default:
		return o, fmt.Errorf("weights %q: want learned or fixed: %w", c.Weights, ErrInvalidOptions)
	}
	if o.Profile, err = c.profile(); err != nil {
		return o, err
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

// SaveWeights writes the learnt link weights of s to the config's weights
// file, for the next crawl to start from. Without a weights file, or with
// fixed weights, it does nothing.
func (c *Config) SaveWeights(s *relevance.LinkScorer) error {
	if c.WeightsFile == "" || c.Weights == "fixed" {
		return nil
	}
	state, err := s.MarshalJSON()
	if err == nil {
		err = os.WriteFile(c.WeightsFile, append(state, '\n'), 0o644)
	}
	if err != nil {
		return fmt.Errorf("crawler: weights file: %w", err)
	}
	return nil
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
