package builtin

import (
	"encoding/json"
)

// DescribeCall names what each call works on, for progress lines, events
// and stall reports (loop.CallDescriber): the shell's command, the file
// tools' path (or pattern). The loop redacts and cuts it.

func (t *shellTool) DescribeCall(args json.RawMessage) (string, string) {
	var a shellArgs
	_ = json.Unmarshal(args, &a)
	return "command", a.Command
}

func (t *readFile) DescribeCall(args json.RawMessage) (string, string)    { return describePath(args) }
func (t *writeFile) DescribeCall(args json.RawMessage) (string, string)   { return describePath(args) }
func (t *patchTool) DescribeCall(args json.RawMessage) (string, string)   { return describePath(args) }
func (t *listDir) DescribeCall(args json.RawMessage) (string, string)     { return describePath(args) }
func (t *searchFiles) DescribeCall(args json.RawMessage) (string, string) { return describePath(args) }

func (t *globTool) DescribeCall(args json.RawMessage) (string, string) {
	var a globArgs
	_ = json.Unmarshal(args, &a)
	return "path", a.Pattern
}

// describePath is the path a file tool's arguments name ("." when none).
func describePath(args json.RawMessage) (string, string) {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Path == "" {
		a.Path = "."
	}
	return "path", a.Path
}
