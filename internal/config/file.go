package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/odek-run/odek/internal/mcpclient"
)

// MaxFileBytes caps every file Load reads: config.json, odek.json and
// secrets.env. A larger file is a setup error rather than a slow start.
const MaxFileBytes = 5 << 20

// fileConfig is one config file as written. Pointers distinguish "absent"
// from a zero value, which the layering and the trust rules both need.
type fileConfig struct {
	Model           *string                           `json:"model"`
	BaseURL         *string                           `json:"base_url"`
	APIKey          *string                           `json:"api_key"`
	System          *string                           `json:"system"`
	Thinking        *string                           `json:"thinking"`
	InteractionMode *string                           `json:"interaction_mode"`
	MaxIterations   *int                              `json:"max_iterations"`
	MaxToolParallel *int                              `json:"max_tool_parallel"`
	MaxConcurrency  *int                              `json:"max_concurrency"`
	Stream          *bool                             `json:"stream"`
	NoColor         *bool                             `json:"no_color"`
	Compaction      *bool                             `json:"compaction"`
	Tools           *fileTools                        `json:"tools"`
	Limits          *fileLimits                       `json:"limits"`
	MCPServers      map[string]mcpclient.ServerConfig `json:"mcp_servers"`
	Maintenance     *fileMaintenance                  `json:"maintenance"`
	Planning        *filePlanning                     `json:"planning"`
	Subagent        json.RawMessage                   `json:"subagent"`
	Profiles        json.RawMessage                   `json:"profiles"`
}

type fileTools struct {
	Enabled  []string `json:"enabled"`
	Disabled []string `json:"disabled"`
}

type fileLimits struct {
	MaxRuntimeSeconds *int64               `json:"max_runtime_seconds"`
	MaxToolCalls      *int64               `json:"max_tool_calls"`
	MaxInputTokens    *int64               `json:"max_input_tokens"`
	MaxOutputTokens   *int64               `json:"max_output_tokens"`
	MaxCostUSD        *float64             `json:"max_cost_usd"`
	InputCost         *float64             `json:"input_cost_per_million_usd"`
	OutputCost        *float64             `json:"output_cost_per_million_usd"`
	ModelPrices       map[string]filePrice `json:"model_prices"`
}

type filePrice struct {
	Input  *float64 `json:"input_cost_per_million_usd"`
	Output *float64 `json:"output_cost_per_million_usd"`
}

type fileMaintenance struct {
	ArtifactsMaxAgeHours *int `json:"artifacts_max_age_hours"`
}

type filePlanning struct {
	Enabled        *bool `json:"enabled"`
	MaxSteps       *int  `json:"max_steps"`
	MaxRenderChars *int  `json:"max_render_chars"`
}

// loadedFile is a decoded config file plus its raw top-level keys, which the
// trust rules need for keys odek does not decode (dangerous, memory, ...).
type loadedFile struct {
	path string
	cfg  fileConfig
	top  map[string]json.RawMessage
}

// readConfigFile reads and decodes path. found is false for a missing file.
// Whitespace-only content is an empty config (a freshly touched file).
func readConfigFile(path string) (f *loadedFile, found bool, err error) {
	data, found, err := readLimited(path)
	if err != nil || !found {
		return nil, found, err
	}
	f = &loadedFile{path: path}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, true, nil
	}
	if err := json.Unmarshal(data, &f.cfg); err != nil {
		return nil, true, newParseError(path, data, err)
	}
	// Cannot fail once the typed decode succeeded; a JSON null leaves top nil.
	_ = json.Unmarshal(data, &f.top)
	return f, true, nil
}

// readLimited reads a regular file of at most MaxFileBytes. It stats first so
// that a FIFO or device planted under a config name is never opened.
func readLimited(path string) ([]byte, bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: %v", err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, false, setupErrorf("config: %s is not a regular file (mode %s)", path, fi.Mode())
	}
	if fi.Size() > MaxFileBytes {
		return nil, false, tooLarge(path, fi.Size())
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: %v", err), Err: err}
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, false, &SetupError{Msg: fmt.Sprintf("config: read %s: %v", path, err), Err: err}
	}
	if len(data) > MaxFileBytes { // grew after the stat
		return nil, false, tooLarge(path, int64(len(data)))
	}
	return data, true, nil
}

func tooLarge(path string, size int64) error {
	return &SetupError{
		Msg: fmt.Sprintf("config: %s is %d bytes, over the %d-byte (5 MiB) limit", path, size, MaxFileBytes),
		Err: ErrFileTooLarge,
	}
}
