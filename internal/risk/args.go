package risk

import "strings"

// opts is a command's arguments split getopt-style: flags (short letters and
// long names), their values, and the operands. GNU tools take flags after
// operands too, so every argument before "--" is looked at.
type opts struct {
	flags map[string]bool
	vals  map[string]arg
	ops   []arg
}

// parseOpts splits args. shortVal lists the short flags that take a value;
// longVal the long ones (space-separated).
func parseOpts(args []arg, shortVal, longVal string) opts {
	o := opts{flags: map[string]bool{}, vals: map[string]arg{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.static && a.s == "--":
			o.ops = append(o.ops, args[i+1:]...)
			return o
		case !a.static || len(a.s) < 2 || a.s[0] != '-':
			o.ops = append(o.ops, a)
		case strings.HasPrefix(a.s, "--"):
			name, v, hasVal := strings.Cut(a.s[2:], "=")
			o.flags[name] = true
			val := arg{s: v, static: true}
			if !hasVal && hasWord(longVal, name) && i+1 < len(args) {
				i++
				val, hasVal = args[i], true
			}
			if hasVal {
				o.vals[name] = val
			}
		default:
			for j := 1; j < len(a.s); j++ {
				f := a.s[j : j+1]
				o.flags[f] = true
				if strings.Contains(shortVal, f) {
					if j+1 < len(a.s) {
						o.vals[f] = arg{s: a.s[j+1:], static: true}
					} else if i+1 < len(args) {
						i++
						o.vals[f] = args[i]
					}
					break
				}
			}
		}
	}
	return o
}

func hasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

// has reports whether any of the flags was given.
func (o opts) has(names ...string) bool {
	for _, n := range names {
		if o.flags[n] {
			return true
		}
	}
	return false
}

// val is the value of the first given flag among names.
func (o opts) val(names ...string) (arg, bool) {
	for _, n := range names {
		if v, ok := o.vals[n]; ok {
			return v, true
		}
	}
	return arg{}, false
}

// commandStart is the index of the first operand of a wrapper whose options
// stop at the wrapped command (sudo, env, nice, timeout…).
func commandStart(args []arg, shortVal, longVal string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.static && a.s == "--":
			return i + 1
		case !a.static || len(a.s) < 2 || a.s[0] != '-':
			return i
		case strings.HasPrefix(a.s, "--"):
			name, _, hasVal := strings.Cut(a.s[2:], "=")
			if !hasVal && hasWord(longVal, name) {
				i++
			}
		default:
			for j := 1; j < len(a.s); j++ {
				if strings.IndexByte(shortVal, a.s[j]) >= 0 {
					if j+1 == len(a.s) {
						i++
					}
					break
				}
			}
		}
	}
	return len(args)
}

// lit is a static argument for the recursive calls of wrappers.
func lit(s string) arg { return arg{s: s, static: true} }

// joined is args as one command string, and whether every part is static.
func joined(args []arg) (string, bool) {
	parts := make([]string, len(args))
	static := true
	for i, a := range args {
		parts[i] = a.s
		static = static && a.static
	}
	return strings.Join(parts, " "), static
}
