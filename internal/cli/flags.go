package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/agentrun"
	"github.com/odek-run/odek/internal/config"
	"github.com/spf13/cobra"
)

// registerRunFlags adds -c and the flags generated from the settings table:
// one per supported setting that names a flag. Each value is parsed by the
// table's rules as the command line is read and recorded in o, so an unset
// flag never masks a config value.
func registerRunFlags(cmd *cobra.Command, o *config.Overrides) {
	registerConfigFlag(cmd, o)
	registerSettingFlags(cmd, o, func(string) bool { return true })
	fl := cmd.Flags().VarPF(&noToolsFlag{o: o}, "no-tools", "",
		`offer the model no tools at all, for models without tool support (the plain spelling of --tool "")`)
	fl.NoOptDefVal = "true"
}

// noToolsFlag is --no-tools: tools.enabled set to no tool, as --tool "".
type noToolsFlag struct {
	o  *config.Overrides
	on bool
}

func (v *noToolsFlag) String() string { return strconv.FormatBool(v.on) }
func (v *noToolsFlag) Type() string   { return "bool" }

func (v *noToolsFlag) Set(text string) error {
	on, err := strconv.ParseBool(text)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", text)
	}
	if !on || v.on {
		return nil
	}
	if names, _ := v.o.Strings("tools.enabled"); len(names) > 0 {
		return fmt.Errorf("cannot be combined with --tool %s", strings.Join(names, ","))
	}
	v.on = true
	return v.o.Set("tools.enabled", "", agentrun.NoToolsOrigin)
}

// registerSettingFlags adds the generated flag of every supported setting
// keep accepts.
func registerSettingFlags(cmd *cobra.Command, o *config.Overrides, keep func(key string) bool) {
	for _, s := range config.Settings() {
		if s.Flag == "" || !s.Supported || !keep(s.Key) {
			continue
		}
		v := &settingFlag{key: s.Key, name: "--" + s.Flag, kind: s.Kind, o: o}
		fl := cmd.Flags().VarPF(v, s.Flag, "", flagUsage(&s))
		if s.Kind == config.Bool {
			fl.NoOptDefVal = "true"
		}
	}
}

// flagUsage is a setting's help line as --help shows it.
func flagUsage(s *config.Setting) string {
	u := s.Help
	if s.Kind == config.StringList {
		u += " (repeatable)"
	}
	if d := s.DefaultText(); d != "" && d != "false" && d != "0" && d != "0 (none)" {
		u += " (default " + d + ")"
	}
	return u
}

// registerConfigFlag adds -c/--config key=value, which sets any setting for
// one run with the same checks as its file value; it is operator-trusted,
// like a flag. Every command that loads the config takes it.
func registerConfigFlag(cmd *cobra.Command, o *config.Overrides) {
	cmd.Flags().VarP(&configFlag{o: o}, "config", "c",
		"set a setting for this run, e.g. -c llm.idle_timeout_seconds=30 (repeatable; keys in docs/CONFIG.md)")
	cmd.Flags().Var(&mcpConfigFlag{o: o}, "mcp-config",
		`also use the MCP servers of FILE, a JSON file {"mcp_servers": {...}} trusted like ~/.odek/config.json (repeatable; a later file wins)`)
}

// mcpConfigFlag is the pflag.Value of --mcp-config.
type mcpConfigFlag struct {
	o     *config.Overrides
	files []string
}

func (v *mcpConfigFlag) String() string { return strings.Join(v.files, ",") }
func (v *mcpConfigFlag) Type() string   { return "FILE" }

func (v *mcpConfigFlag) Set(path string) error {
	if path == "" {
		return fmt.Errorf("needs a file name")
	}
	v.o.AddMCPConfig(path)
	v.files = append(v.files, path)
	return nil
}

// configFlag is the pflag.Value of -c.
type configFlag struct {
	o     *config.Overrides
	pairs []string
}

func (v *configFlag) String() string { return strings.Join(v.pairs, ",") }
func (v *configFlag) Type() string   { return "key=value" }

func (v *configFlag) Set(pair string) error {
	if err := v.o.SetPair(pair); err != nil {
		return err
	}
	v.pairs = append(v.pairs, pair)
	return nil
}

// settingFlag is a pflag.Value that records into Overrides.
type settingFlag struct {
	key, name, text string
	kind            config.Kind
	o               *config.Overrides
}

func (v *settingFlag) String() string { return v.text }

func (v *settingFlag) Set(text string) error {
	if err := v.o.Set(v.key, text, v.name); err != nil {
		return err
	}
	v.text = text
	return nil
}

// Type names the value in --help.
func (v *settingFlag) Type() string {
	switch v.kind {
	case config.Bool:
		return "bool"
	case config.Int:
		return "int"
	case config.Float:
		return "float"
	case config.Seconds:
		return "duration"
	case config.StringList:
		return "strings"
	}
	return "string"
}
