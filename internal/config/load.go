package config

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odek-run/odek/internal/budget"
	"github.com/odek-run/odek/internal/hooks"
	"github.com/odek-run/odek/internal/reporoot"
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
	// DefaultArtifactsMaxRunMiB caps what one run keeps of the results cut
	// for the model: 32 shell outputs at their 8 MiB most, or four MCP
	// results at the 64 MiB response cap.
	DefaultArtifactsMaxRunMiB = 256
	// DefaultMaxStopContinuations is how often Stop hooks may keep the
	// agent going: enough for a fix-and-retest loop, few enough that a
	// hook that never agrees costs little.
	DefaultMaxStopContinuations = 3
)

// LoadOptions says where the layers live.
type LoadOptions struct {
	// Home is $ODEK_HOME or ~/.odek, resolved by the caller; "" skips
	// secrets.env and the global file.
	Home string
	// Dir is the working directory. The project file is the nearest
	// odek.json from Dir up to the repository root (reporoot.Find: the
	// nearest directory with a .git entry), Dir's own when Dir is in no
	// repository. "" skips the project layer.
	Dir string
	// LookupEnv reads the real environment (os.LookupEnv in cmd/odek);
	// nil means an empty environment.
	LookupEnv func(string) (string, bool)
	// Flags are the command-line overrides.
	Flags Overrides
}

// Config is the resolved configuration. docs/CONFIG.md documents each
// setting by its key; the table in table.go binds keys to these fields.
type Config struct {
	Model, BaseURL, APIKey string
	// APIKeySource is "ODEK_API_KEY", "OPENAI_API_KEY" (either with " from
	// <home>/secrets.env" when that file set it), "global config api_key" or "".
	APIKeySource string
	Stream       bool
	System       string
	AppendSystem string // added after the system prompt
	// NoAgents reads no AGENTS.md; AgentsMaxBytes caps what the model
	// gets of them (agentsmd.Options.MaxBytes).
	NoAgents        bool
	AgentsMaxBytes  int
	Thinking        string // "" = the model's default
	ReasoningEffort string // "" = not sent
	ThinkingBudget  int    // tokens; 0 = none
	// PromptCaching sends the run's cache key (llm.Options.PromptCacheKey).
	PromptCaching bool
	LLM           LLM
	// ContextWindow is the model's context size in tokens (0 = unknown);
	// ModelContextWindows holds sizes by exact model id (global file only).
	ContextWindow       int
	ModelContextWindows map[string]int
	Compaction          bool
	MaxIterations       int
	MaxToolParallel     int
	MaxConcurrency      int
	InteractionMode     string
	NoColor             bool
	// OutputSchema is the path of the JSON Schema the answer must match.
	OutputSchema        string
	OutputSchemaRetries int
	// Heartbeat is the interval of run_heartbeat events (0 = none);
	// StallTimeout stops a run in which nothing showed progress that long
	// (0 = never); LoopBreaker configures the loop breaker.
	Heartbeat    time.Duration
	StallTimeout time.Duration
	LoopBreaker  LoopBreaker
	Planning     Planning
	Sandbox      Sandbox
	Limits       budget.Limits
	// Prices and ModelPrices come from the global file only.
	Prices      budget.Prices
	ModelPrices map[string]budget.ModelPrice
	// MCPServers are the enabled servers, sorted by name.
	MCPServers []MCPServer
	// Hooks are the operator's hooks (the global file's) and ProjectHooks
	// the project file's, which need the operator's approval to run.
	Hooks, ProjectHooks hooks.Config
	// MaxStopContinuations caps Stop hooks keeping the agent going.
	MaxStopContinuations int
	// NoHooks turns every hook off (--no-hooks).
	NoHooks bool
	// ToolsEnabled is the highest layer's allowlist (nil = all tools);
	// ToolsDisabled is the union of every layer's denylist.
	ToolsEnabled, ToolsDisabled []string
	// ShellEnvPassthrough are the variables (names or PREFIX*) the shell
	// tool gets beyond its base environment; a project file may only
	// narrow the list.
	ShellEnvPassthrough []string
	// ProjectEnvAllow are the variables a project file's ${VAR} may
	// expand (operator layers only).
	ProjectEnvAllow      []string
	ArtifactsMaxAgeHours int
	// ArtifactsMaxRunMiB caps the bytes of the results one run saves as
	// artifacts, all together (artifact.Store.LimitSaved).
	ArtifactsMaxRunMiB int
	// Subagent and Profiles come from the global file only.
	Subagent Subagent
	Profiles map[string]Profile
	// Dangerous is the complete risk policy: the global file's, tightened
	// by the project file, with defaults filled in.
	Dangerous Dangerous
	// Telemetry comes from the operator's layers only.
	Telemetry Telemetry
	// Env holds the variables secrets.env provided (absent from the real
	// environment). SecretNames are the sorted names secrets.env defines,
	// those the real environment overrides included, to strip from the
	// environments of sub-agents and shell commands.
	Env         map[string]string
	SecretNames []string
	// Files lists the config files that were loaded, global first.
	Files []string
	// Home and Dir are LoadOptions.Home and LoadOptions.Dir.
	Home, Dir string
	// ProjectFile is the project file that was read ("" when there was
	// none), and ProjectDir the directory holding it (Dir when there was
	// none): the project directory a project file's paths and servers are
	// relative to.
	ProjectFile, ProjectDir string

	lookup  func(string) (string, bool)
	sources []string    // by table index
	kinds   []layerKind // by table index: the layer that set it
	// classSources names where each dangerous.classes decision a layer
	// set came from; a class absent has the default (finish filled it in).
	classSources map[string]string
}

// classKeyPrefix is the dotted path of one class's decision, for Source.
const classKeyPrefix = "dangerous.classes."

// Source names where a setting's value came from: a config file's path, an
// environment variable, a flag ("--max-iter") or "-c <key>"; "" for the
// default or an unknown key. "dangerous.classes.<class>" names where that
// class's decision came from ("" when it is the default of docs/TOOLS.md,
// although Dangerous.Classes holds every class after Load).
func (c *Config) Source(key string) string {
	if class, ok := strings.CutPrefix(key, classKeyPrefix); ok {
		return c.classSources[class]
	}
	i, ok := keyIndex()[key]
	if !ok || c.sources == nil {
		return ""
	}
	return c.sources[i]
}

// DefaultedClasses are the risk classes whose decision no layer set: the
// defaults of docs/TOOLS.md, which --full-auto may relax where a class the
// operator named keeps its decision. In RiskClasses order.
func (c *Config) DefaultedClasses() []string {
	var out []string
	for _, rc := range RiskClasses {
		if c.Source(classKeyPrefix+rc.Name) == "" {
			out = append(out, rc.Name)
		}
	}
	return out
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
	c := &Config{Home: o.Home, Dir: o.Dir, ProjectDir: o.Dir, lookup: real}
	c.setDefaults()
	var warns []string
	var global, project *layer
	var guard *secretGuard
	globalPath := "~/.odek/config.json" // named in warnings even when skipped
	if o.Home != "" {
		globalPath = filepath.Join(o.Home, "config.json")
		sec, w, err := loadSecrets(filepath.Join(o.Home, "secrets.env"), real)
		if err != nil {
			return nil, nil, err
		}
		c.Env, c.SecretNames, warns = sec.env, sec.names, append(warns, w...)
		if global, w, err = loadFile(globalLayer, globalPath, c.LookupEnv); err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
	}
	// The operator's layers come first: project_env_allow decides what the
	// project file may expand.
	env, err := readEnv(c.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	flags, err := o.Flags.layer()
	if err != nil {
		return nil, nil, err
	}
	if path := findProjectFile(o.Dir); path != "" {
		guard = newSecretGuard(c, global)
		guard.allow = projectEnvAllow(global, env, flags)
		p, w, err := loadFile(projectLayer, path, guard.lookup(path, globalPath, &warns))
		if err != nil {
			return nil, nil, err
		}
		project, warns = p, append(warns, w...)
		if p != nil {
			c.ProjectFile, c.ProjectDir = path, filepath.Dir(path)
		}
	}
	extra, w, files, err := loadMCPConfigs(o.Flags.mcpFiles, c.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	warns = append(warns, w...)
	w, err = c.resolve(globalPath, global, project, env, flags, guard, extra)
	if err != nil {
		return nil, nil, err
	}
	c.Files = append(c.Files, files...)
	return c, append(warns, w...), nil
}

// ProjectFileName is the name of the project file.
const ProjectFileName = "odek.json"

// findProjectFile is the nearest odek.json from dir up to its repository's
// root (dir alone outside a repository), "" when there is none or dir is
// "". An entry that is not a regular file counts as found: reading it is
// then the setup error that names it, rather than a silent step past it.
func findProjectFile(dir string) string {
	if dir == "" {
		return ""
	}
	root, _ := reporoot.Find(dir)
	chain := reporoot.Chain(root, dir)
	for i := len(chain) - 1; i >= 0; i-- {
		path := filepath.Join(chain[i], ProjectFileName)
		if _, err := os.Lstat(path); err == nil {
			return path
		}
	}
	return ""
}

// loadFile reads and decodes one config file; nil if it is missing.
func loadFile(kind layerKind, path string, lookup func(string) (string, bool)) (*layer, []string, error) {
	data, found, err := readLimited(path)
	if err != nil || !found {
		return nil, nil, err
	}
	return decodeFile(kind, path, data, lookup)
}

// resolve lays the layers over the defaults: global, project, env, flags.
func (c *Config) resolve(globalPath string, global, project, env, flags *layer, guard *secretGuard, extra map[string]fileServer) ([]string, error) {
	r := &resolver{c: c, globalPath: globalPath, src: make([]string, len(table)), kinds: make([]layerKind, len(table))}
	for _, l := range []*layer{global, project} {
		if l != nil {
			c.Files = append(c.Files, l.path)
		}
	}
	for _, l := range []*layer{global, project, env, flags} {
		if l != nil {
			r.apply(l)
		}
	}
	r.clampAll()
	c.sources, c.kinds = r.src, r.kinds
	c.resolveAPIKey(r.src[keyIndex()["api_key"]])
	c.Dangerous.finish()
	servers, w, err := mergeServers(global, project, extra, globalPath, c.ProjectDir, guard)
	if err != nil {
		return nil, err
	}
	c.MCPServers = servers
	c.Hooks, c.ProjectHooks = layerHooks(global), layerHooks(project)
	if err := c.expandServerHomes(); err != nil {
		return nil, err
	}
	return append(r.warns, w...), nil
}
