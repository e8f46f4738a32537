package config

import (
	"strconv"
	"strings"
)

// envLayer reads the ODEK_* variables into the shape of a config file so
// the same merge applies to every layer. An empty variable counts as unset;
// a value that does not parse is a setup error naming variable and value.
func envLayer(lookup func(string) (string, bool)) (*fileConfig, error) {
	get := func(name string) *string {
		if v, ok := lookup(name); ok && v != "" {
			return &v
		}
		return nil
	}
	fc := &fileConfig{
		Model:           get("ODEK_MODEL"),
		System:          get("ODEK_SYSTEM"),
		Thinking:        get("ODEK_THINKING"),
		InteractionMode: get("ODEK_INTERACTION_MODE"),
		BaseURL:         get("ODEK_BASE_URL"),
	}
	if fc.BaseURL == nil {
		fc.BaseURL = get("OPENAI_BASE_URL")
	}
	var err error
	ints := []struct {
		name string
		dst  **int
	}{
		{"ODEK_MAX_ITER", &fc.MaxIterations},
		{"ODEK_MAX_TOOL_PARALLEL", &fc.MaxToolParallel},
		{"ODEK_MAX_CONCURRENCY", &fc.MaxConcurrency},
	}
	for _, v := range ints {
		if *v.dst, err = envInt(v.name, get(v.name)); err != nil {
			return nil, err
		}
	}
	var planning *bool
	bools := []struct {
		name string
		dst  **bool
	}{
		{"ODEK_STREAM", &fc.Stream},
		{"ODEK_NO_COLOR", &fc.NoColor},
		{"ODEK_COMPACTION", &fc.Compaction},
		{"ODEK_PLANNING", &planning},
	}
	for _, v := range bools {
		if *v.dst, err = envBool(v.name, get(v.name)); err != nil {
			return nil, err
		}
	}
	if planning != nil {
		fc.Planning = &filePlanning{Enabled: planning}
	}
	if fc.NoColor == nil && get("NO_COLOR") != nil { // https://no-color.org
		t := true
		fc.NoColor = &t
	}
	en, dis := get("ODEK_TOOLS_ENABLED"), get("ODEK_TOOLS_DISABLED")
	if en != nil || dis != nil {
		fc.Tools = &fileTools{Enabled: commaList(en), Disabled: commaList(dis)}
	}
	return fc, nil
}

func envInt(name string, v *string) (*int, error) {
	if v == nil {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(*v))
	if err != nil {
		return nil, setupErrorf("%s=%q: not an integer", name, *v)
	}
	return &n, nil
}

func envBool(name string, v *string) (*bool, error) {
	if v == nil {
		return nil, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(*v))
	if err != nil {
		return nil, setupErrorf("%s=%q: not a boolean (use true or false)", name, *v)
	}
	return &b, nil
}

// commaList splits "a, b,,c" into [a b c]; nil when v is nil.
func commaList(v *string) []string {
	if v == nil {
		return nil
	}
	out := []string{}
	for _, s := range strings.Split(*v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// flagLayer puts the flags into the shape of a config file.
func flagLayer(o Overrides) *fileConfig {
	fc := &fileConfig{
		Model: o.Model, BaseURL: o.BaseURL, System: o.System,
		Thinking: o.Thinking, InteractionMode: o.InteractionMode,
		MaxIterations: o.MaxIterations, MaxToolParallel: o.MaxToolParallel,
		MaxConcurrency: o.MaxConcurrency,
		Stream:         o.Stream, NoColor: o.NoColor, Compaction: o.Compaction,
	}
	if o.Planning != nil {
		fc.Planning = &filePlanning{Enabled: o.Planning}
	}
	if o.ToolsEnabled != nil || o.ToolsDisabled != nil {
		fc.Tools = &fileTools{Enabled: o.ToolsEnabled, Disabled: o.ToolsDisabled}
	}
	return fc
}

// validateScalars checks one layer's plain settings; label names a key the
// way that layer spells it (file key, variable or flag).
func validateScalars(fc *fileConfig, label func(key string) string) error {
	atLeast := func(key string, v *int, lo int) error {
		if v != nil && *v < lo {
			return setupErrorf("%s must be at least %d, got %d", label(key), lo, *v)
		}
		return nil
	}
	err := firstError(
		atLeast("max_iterations", fc.MaxIterations, 1),
		atLeast("max_tool_parallel", fc.MaxToolParallel, 0),
		atLeast("max_concurrency", fc.MaxConcurrency, 0),
	)
	if fc.Maintenance != nil && err == nil {
		err = atLeast("maintenance.artifacts_max_age_hours", fc.Maintenance.ArtifactsMaxAgeHours, 0)
	}
	if fc.Planning != nil && err == nil {
		err = firstError(atLeast("planning.max_steps", fc.Planning.MaxSteps, 0),
			atLeast("planning.max_render_chars", fc.Planning.MaxRenderChars, 0))
	}
	if m := fc.InteractionMode; m != nil && err == nil && !interactionModes[*m] {
		err = setupErrorf("%s: unknown mode %q (want engaging, enhance, verbose or off)", label("interaction_mode"), *m)
	}
	return err
}

var interactionModes = set("engaging", "enhance", "verbose", "off")

// Labels for validateScalars outside files.
var envNames = map[string]string{
	"max_iterations": "ODEK_MAX_ITER", "max_tool_parallel": "ODEK_MAX_TOOL_PARALLEL",
	"max_concurrency": "ODEK_MAX_CONCURRENCY", "interaction_mode": "ODEK_INTERACTION_MODE",
}

var flagNames = map[string]string{
	"max_iterations": "--max-iter", "max_tool_parallel": "--max-tool-parallel",
	"max_concurrency": "--max-concurrency", "interaction_mode": "--interaction-mode",
}
