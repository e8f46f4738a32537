package subagent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/untrusted"
)

// Inlining limits of docs/SUBAGENTS.md: text artifacts up to maxInlineBytes are
// shown in full, largest first, until maxInlineTotal bytes per call.
const (
	maxInlineBytes = 32 << 10
	maxInlineTotal = 128 << 10
)

// Registrar makes a validated artifact readable by id (artifact.Store).
type Registrar interface {
	Register(v artifact.Verified, id string) error
}

// taskArtifacts are the refs one child returned and the root they must lie in.
type taskArtifacts struct {
	Index int    // 1-based task number
	Root  string // the task's artifact directory, created by the parent
	Refs  []artifact.Ref
}

// delivered is one ref that passed validation.
type delivered struct {
	task    int
	id      string
	v       *artifact.Verified
	content []byte // set when inlined
}

// deliverArtifacts validates every ref fail closed against its own task's
// root, gives each a unique id (the first keeps it, a later one from task K
// becomes "<id>.tK"), inlines small text artifacts after re-hashing them,
// registers the rest with reg for artifact_read, and returns the rendered
// lines per task index. A ref that fails anywhere is dropped with
// `  [artifact] dropped "<id>": <why>` — never with its path.
func deliverArtifacts(tasks []taskArtifacts, reg Registrar) map[int][]string {
	lines := map[int][]string{}
	used := map[string]bool{}
	var ok []*delivered
	for _, t := range tasks {
		for i, ref := range t.Refs {
			if i >= artifact.MaxRefs {
				lines[t.Index] = append(lines[t.Index], droppedLine(ref.ID, fmt.Sprintf("more than %d artifacts in one result", artifact.MaxRefs)))
				continue
			}
			d, why := validateRef(ref, t, used)
			if d == nil {
				lines[t.Index] = append(lines[t.Index], droppedLine(ref.ID, why))
				continue
			}
			ok = append(ok, d)
		}
	}
	inline(ok)
	for _, d := range ok {
		if d.v == nil {
			lines[d.task] = append(lines[d.task], droppedLine(d.id, "content changed after validation (sha256 mismatch on re-read)"))
			continue
		}
		if reg != nil {
			if err := reg.Register(*d.v, d.id); err != nil {
				lines[d.task] = append(lines[d.task], droppedLine(d.id, "cannot be registered: "+err.Error()))
				continue
			}
		}
		lines[d.task] = append(lines[d.task], renderArtifact(d)...)
	}
	return lines
}

// validateRef checks one ref against its task's root and picks its id.
func validateRef(ref artifact.Ref, t taskArtifacts, used map[string]bool) (*delivered, string) {
	if t.Root == "" {
		return nil, "the task has no artifact root"
	}
	v, err := artifact.Validate(ref, []string{t.Root})
	if err != nil {
		var re *artifact.RefError
		if errors.As(err, &re) {
			return nil, re.Reason
		}
		return nil, "invalid"
	}
	id := untrusted.OneLine(ref.ID, 128)
	if used[id] {
		id += ".t" + strconv.Itoa(t.Index)
	}
	if used[id] {
		return nil, "duplicate id"
	}
	used[id] = true
	return &delivered{task: t.Index, id: id, v: v}, ""
}

// inline picks text artifacts of at most maxInlineBytes, largest first,
// within maxInlineTotal, and reads them again the way Validate reached them;
// one that is no longer the validated file, or whose bytes no longer match
// its hash, loses its Verified (and is then dropped).
func inline(ds []*delivered) {
	var cand []*delivered
	for _, d := range ds {
		if strings.HasPrefix(d.v.Ref.MediaType, "text/") && d.v.Size <= maxInlineBytes {
			cand = append(cand, d)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return cand[i].v.Size > cand[j].v.Size })
	var total int64
	for _, d := range cand {
		if total+d.v.Size > maxInlineTotal {
			continue
		}
		data, err := rehash(d.v)
		if err != nil {
			d.v = nil
			continue
		}
		total += d.v.Size
		d.content = data
	}
}

// rehash re-reads a validated file, reopened below its root without
// following any symlink and still the same inode, and requires the
// validated size and hash.
func rehash(v *artifact.Verified) ([]byte, error) {
	f, err := v.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInlineBytes+1))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != v.Size || hex.EncodeToString(sum[:]) != v.SHA256 {
		return nil, errors.New("sha256 mismatch")
	}
	return data, nil
}

// renderArtifact is the metadata line, then the content when inlined.
func renderArtifact(d *delivered) []string {
	v := d.v
	line := fmt.Sprintf("  - %s (%s, %d bytes, sha256:%s, task %d)", d.id,
		untrusted.OneLine(v.Ref.MediaType, 128), v.Size, v.SHA256[:12], d.task)
	if v.Ref.Summary != "" {
		line += " — " + untrusted.OneLine(v.Ref.Summary, 200)
	}
	out := []string{line}
	if d.content != nil {
		body := strings.TrimRight(string(d.content), "\n")
		out = append(out, "  --- artifact: "+d.id+" ---", "    "+indentBlock(body, "    "), "  --- end artifact ---")
	}
	return out
}

func droppedLine(id, why string) string {
	return fmt.Sprintf("  [artifact] dropped %q: %s", untrusted.OneLine(id, 128), untrusted.OneLine(why, 300))
}
