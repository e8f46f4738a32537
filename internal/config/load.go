package config

import (
	"encoding/json"
	"path/filepath"

	"github.com/odek-run/odek/internal/budget"
)

// Defaults for settings no layer sets.
const (
	DefaultModel                = "gpt-4o-mini"
	DefaultBaseURL              = "https://api.openai.com/v1"
	DefaultMaxIterations        = 90
	DefaultMaxToolParallel      = 4
	DefaultMaxConcurrency       = 3
	MaxConcurrencyCap           = 8
	DefaultInteractionMode      = "engaging"
	DefaultArtifactsMaxAgeHours = 24
)

// LoadOptions says where the layers live.
type LoadOptions struct {
	// Home is $ODEK_HOME or ~/.odek, resolved by the caller; "" skips
	// secrets.env and the global file.
	Home string
	// Dir is the working directory; the project file is Dir/odek.json.
	// "" skips the project layer.
	Dir string
	// LookupEnv reads the real environment (os.LookupEnv in cmd/odek);
	// nil means an empty environment.
	LookupEnv func(string) (string, bool)
	// Flags are the command-line overrides.
	Flags Overrides
}

// Overrides are the command-line flags: nil means "flag not given". They are
// operator-trusted and beat every other layer, limits included.
type Overrides struct {
	Model, BaseURL, System, Thinking, InteractionMode *string
	MaxIterations, MaxToolParallel, MaxConcurrency    *int
	Stream, NoColor, Compaction, Planning             *bool
	// Limits; an explicit 0 removes the limit.
	MaxRuntimeSeconds, MaxToolCalls, MaxInputTokens, MaxOutputTokens *int64
	MaxCostUSD                                                       *float64
	// ToolsEnabled replaces the lower layers' list when non-nil;
	// ToolsDisabled is added to theirs.
	ToolsEnabled, ToolsDisabled []string
}

// Config is the resolved configuration.
type Config struct {
	Model, BaseURL, APIKey string
	// APIKeySource is "ODEK_API_KEY", "OPENAI_API_KEY", "global config api_key" or "".
	APIKeySource    string
	Stream          bool
	System          string
	MaxIterations   int
	MaxToolParallel int
	NoColor         bool
	InteractionMode string
	Thinking        string // "" = the profile's default
	Compaction      bool
	MaxConcurrency  int
	Planning        Planning
	Limits          budget.Limits
	// Prices and ModelPrices come from the global file only.
	Prices      budget.Prices
	ModelPrices map[string]budget.ModelPrice
	// MCPServers are the enabled servers, sorted by name.
	MCPServers []MCPServer
	// ToolsEnabled is the highest layer's allowlist (nil = all tools);
	// ToolsDisabled is the union of every layer's denylist.
	ToolsEnabled, ToolsDisabled []string
	ArtifactsMaxAgeHours        int
	// Subagent and Profiles are the global file's sections, undecoded, for
	// the sub-agent code.
	Subagent, Profiles json.RawMessage
	// Env holds the variables secrets.env provided (absent from the real
	// environment); SecretNames are their sorted names, to strip from
	// sub-agent environments.
	Env         map[string]string
	SecretNames []string
	// Files lists the config files that were loaded, global first.
	Files []string
	// Home and Dir are LoadOptions.Home and LoadOptions.Dir.
	Home, Dir string

	lookup func(string) (string, bool)
}

// Planning configures the built-in plan tool.
type Planning struct {
	Enabled        bool
	MaxSteps       int // 1..50, default 12
	MaxRenderChars int // 200..8000, default 2000
}

// LookupEnv reads the real environment, then what secrets.env provided.
func (c *Config) LookupEnv(name string) (string, bool) {
	if c.lookup != nil {
		if v, ok := c.lookup(name); ok {
			return v, true
		}
	}
	v, ok := c.Env[name]
	return v, ok
}

// Load resolves every layer. It prints nothing: warnings are returned. Every
// error matches ErrSetup; invalid JSON is a *ParseError.
func Load(o LoadOptions) (*Config, []string, error) {
	real := o.LookupEnv
	if real == nil {
		real = func(string) (string, bool) { return "", false }
	}
	c := &Config{Home: o.Home, Dir: o.Dir, lookup: real}
	var warns []string
	var global, project *loadedFile
	globalPath := "~/.odek/config.json" // named in warnings even when skipped
	if o.Home != "" {
		globalPath = filepath.Join(o.Home, "config.json")
	}
	if o.Home != "" {
		sec, w, err := loadSecrets(filepath.Join(o.Home, "secrets.env"), real)
		if err != nil {
			return nil, nil, err
		}
		c.Env, c.SecretNames, warns = sec.env, sec.names, append(warns, w...)
		if global, w, err = loadLayer(globalPath, c.LookupEnv); err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
	}
	if o.Dir != "" {
		var w []string
		var err error
		path := filepath.Join(o.Dir, "odek.json")
		project, w, err = loadLayer(path, projectLookup(c, path, &warns))
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
		if project != nil {
			warns = append(warns, applyProjectTrust(project, globalPath)...)
		}
	}
	w, err := c.resolve(o, global, project, globalPath)
	if err != nil {
		return nil, nil, err
	}
	return c, append(warns, w...), nil
}

// loadLayer reads, validates and expands one config file; nil if missing.
func loadLayer(path string, lookup func(string) (string, bool)) (*loadedFile, []string, error) {
	f, found, err := readConfigFile(path)
	if err != nil || !found {
		return nil, nil, err
	}
	expandFile(&f.cfg, lookup) // first: interaction_mode may be "${MODE}"
	label := func(key string) string { return path + ": " + key }
	if err := firstError(validateScalars(&f.cfg, label), validateLimits(f.cfg.Limits, path)); err != nil {
		return nil, nil, err
	}
	return f, unknownKeyWarnings(f), nil
}
