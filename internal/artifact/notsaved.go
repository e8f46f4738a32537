package artifact

import (
	"errors"
	"fmt"
)

// NotSavedNotice is the line a cut result gets in place of the metadata
// line of its saved whole when SaveResult failed: what was not kept, why,
// and what to do instead, for the model. what names the result ("shell
// command's output", "result of srv__tool") and size its bytes. It names
// no path and quotes no error text (a disk error's would hold one).
func NotSavedNotice(err error, what string, size int64) string {
	if ce := (*CapError)(nil); errors.As(err, &ce) {
		return fmt.Sprintf("[odek: the whole %s (%s) was not kept: this run's saved results are at their cap "+
			"(%s of %s used), so artifact_read cannot page it and only the part above is available. "+
			"Ask for less at a time: narrow the command or the tool's arguments, or filter the output (grep, head, tail).]",
			what, FormatBytes(size), FormatBytes(ce.Used), FormatBytes(ce.Max))
	}
	return fmt.Sprintf("[odek: the whole %s (%s) could not be saved, so artifact_read cannot page it and only the part above is available.]",
		what, FormatBytes(size))
}

// FormatBytes writes a size for people: "812 bytes", "3.5 KiB", "8.0 MiB",
// "1.2 GiB".
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
