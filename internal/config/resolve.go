package config

import (
	"fmt"
	"slices"
)

// resolve merges the layers into c: defaults, global, project, env, flags.
func (c *Config) resolve(o LoadOptions, global, project *loadedFile, globalPath string) ([]string, error) {
	envFC, err := envLayer(c.LookupEnv)
	if err != nil {
		return nil, err
	}
	flagFC := flagLayer(o.Flags)
	if err := firstError(
		validateScalars(envFC, func(k string) string { return envNames[k] }),
		validateScalars(flagFC, func(k string) string { return flagNames[k] }),
	); err != nil {
		return nil, err
	}
	c.Model, c.BaseURL, c.Stream, c.Compaction = DefaultModel, DefaultBaseURL, true, true
	c.MaxIterations, c.InteractionMode = DefaultMaxIterations, DefaultInteractionMode
	var gfc, pfc fileConfig
	if global != nil {
		gfc = global.cfg
		c.Files = append(c.Files, global.path)
	}
	if project != nil {
		pfc = project.cfg
		c.Files = append(c.Files, project.path)
	}
	for _, fc := range []*fileConfig{&gfc, &pfc, envFC, flagFC} {
		c.apply(fc)
	}
	c.resolveAPIKey(gfc.APIKey)
	var warns []string
	c.Limits, c.Prices, c.ModelPrices = globalBudget(gfc.Limits)
	if project != nil {
		var w []string
		c.Limits, w = clampProjectLimits(c.Limits, pfc.Limits, project.path, globalPath)
		warns = append(warns, w...)
	}
	if c.Limits, err = applyLimitFlags(c.Limits, o.Flags); err != nil {
		return nil, err
	}
	var w []string
	c.Planning, w = resolvePlanning([]*filePlanning{gfc.Planning, pfc.Planning, envFC.Planning, flagFC.Planning}, project, globalPath)
	warns = append(warns, w...)
	if c.MCPServers, w, err = mergeServers(global, project, globalPath, o.Dir); err != nil {
		return nil, err
	}
	warns = append(warns, w...)
	return append(warns, c.applyDefaults()...), nil
}

// apply lays one layer over c. Empty strings count as unset, so a blank
// "${VAR}" or ODEK_MODEL= never wipes a lower layer's value.
func (c *Config) apply(fc *fileConfig) {
	for _, f := range []struct{ dst, src *string }{
		{&c.Model, fc.Model}, {&c.BaseURL, fc.BaseURL}, {&c.System, fc.System},
		{&c.Thinking, fc.Thinking}, {&c.InteractionMode, fc.InteractionMode},
	} {
		if f.src != nil && *f.src != "" {
			*f.dst = *f.src
		}
	}
	setIf(&c.MaxIterations, fc.MaxIterations)
	setIf(&c.MaxToolParallel, fc.MaxToolParallel)
	setIf(&c.MaxConcurrency, fc.MaxConcurrency)
	setIf(&c.Stream, fc.Stream)
	setIf(&c.NoColor, fc.NoColor)
	setIf(&c.Compaction, fc.Compaction)
	if fc.Tools != nil {
		if fc.Tools.Enabled != nil {
			c.ToolsEnabled = slices.Clone(fc.Tools.Enabled)
		}
		for _, t := range fc.Tools.Disabled {
			if !slices.Contains(c.ToolsDisabled, t) {
				c.ToolsDisabled = append(c.ToolsDisabled, t)
			}
		}
	}
	if fc.Maintenance != nil {
		setIf(&c.ArtifactsMaxAgeHours, fc.Maintenance.ArtifactsMaxAgeHours)
	}
	if fc.Subagent != nil {
		c.Subagent = fc.Subagent
	}
	if fc.Profiles != nil {
		c.Profiles = fc.Profiles
	}
}

// resolveAPIKey applies DECISION 10: ODEK_API_KEY, OPENAI_API_KEY, then the
// global file (the project file cannot hold a key).
func (c *Config) resolveAPIKey(global *string) {
	for _, name := range []string{"ODEK_API_KEY", "OPENAI_API_KEY"} {
		if v, ok := c.LookupEnv(name); ok && v != "" {
			c.APIKey, c.APIKeySource = v, name
			return
		}
	}
	if global != nil && *global != "" {
		c.APIKey, c.APIKeySource = *global, "global config api_key"
	}
}

// applyDefaults turns the "0 means default" settings into their defaults.
func (c *Config) applyDefaults() []string {
	var w []string
	if c.MaxToolParallel == 0 {
		c.MaxToolParallel = DefaultMaxToolParallel
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	if c.MaxConcurrency > MaxConcurrencyCap {
		w = append(w, fmt.Sprintf("max_concurrency %d exceeds the cap of %d; clamped to %d", c.MaxConcurrency, MaxConcurrencyCap, MaxConcurrencyCap))
		c.MaxConcurrency = MaxConcurrencyCap
	}
	if c.ArtifactsMaxAgeHours == 0 {
		c.ArtifactsMaxAgeHours = DefaultArtifactsMaxAgeHours
	}
	return w
}

// resolvePlanning applies BEHAVIOR 2.3/2.4 to the planning section of the
// layers global, project, env, flags: the project may turn planning off or
// lower its caps, never turn it on against the global file or raise a cap.
func resolvePlanning(layers []*filePlanning, project *loadedFile, globalPath string) (Planning, []string) {
	p := Planning{Enabled: true, MaxSteps: 12, MaxRenderChars: 2000}
	var w []string
	if g := layers[0]; g != nil {
		setIf(&p.Enabled, g.Enabled)
		setPositive(&p.MaxSteps, g.MaxSteps)
		setPositive(&p.MaxRenderChars, g.MaxRenderChars)
	}
	if pr := layers[1]; pr != nil {
		switch {
		case pr.Enabled == nil || !*pr.Enabled:
			if pr.Enabled != nil {
				p.Enabled = false
			}
		case !p.Enabled:
			w = append(w, fmt.Sprintf("%s: ignoring \"planning.enabled\": %s turns planning off and a project file cannot turn it on", project.path, globalPath))
		}
		w = lowerOnly(w, project.path, "planning.max_steps", &p.MaxSteps, pr.MaxSteps)
		w = lowerOnly(w, project.path, "planning.max_render_chars", &p.MaxRenderChars, pr.MaxRenderChars)
	}
	for _, l := range layers[2:] {
		if l != nil {
			setIf(&p.Enabled, l.Enabled)
		}
	}
	p.MaxSteps = min(max(p.MaxSteps, 1), 50)
	p.MaxRenderChars = min(max(p.MaxRenderChars, 200), 8000)
	return p, w
}

func setPositive(dst *int, src *int) {
	if src != nil && *src > 0 {
		*dst = *src
	}
}

// lowerOnly takes a project cap only if it lowers the current one.
func lowerOnly(w []string, path, key string, cur *int, project *int) []string {
	switch {
	case project == nil || *project == 0 || *project == *cur:
	case *project < *cur:
		*cur = *project
	default:
		w = append(w, fmt.Sprintf("%s: ignoring %s %d: a project file may only lower it (current value %d)", path, key, *project, *cur))
	}
	return w
}
