package config

import (
	"path/filepath"
)

// OutputSchemaPath is the file output_schema names, "" when it is unset.
// Where the path is relative to follows the layer that set it: the global
// file's is relative to Home (the directory of that file); the project
// file's must lead to a file inside ProjectDir (the directory holding it), since the project file is untrusted
// and the whole schema goes into the system prompt (a cloned repository
// must not send, say, ~/.docker/config.json to the model); a flag's or
// -c's is as given, relative to the working directory. A path that does not
// exist is returned as it is: reading it names the missing file. The error,
// a path the project file may not name, matches ErrSetup.
func (c *Config) OutputSchemaPath() (string, error) {
	p := c.OutputSchema
	if p == "" {
		return "", nil
	}
	i := keyIndex()["output_schema"]
	var kind layerKind
	if c.kinds != nil {
		kind = c.kinds[i]
	}
	switch kind {
	case globalLayer:
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Home, p)
		}
		return p, nil
	case projectLayer:
		return insideDir(c.ProjectDir, p, c.sources[i])
	}
	return p, nil
}

// insideDir joins a project-relative path to dir and refuses one that is
// absolute, climbs out, or leads out through a symlink; src names the file
// that set it.
func insideDir(dir, p, src string) (string, error) {
	outside := setupErrorf("output_schema %q in %s is outside the project directory; a project file may only name a schema inside it", p, src)
	if !filepath.IsLocal(p) {
		return "", outside
	}
	full := filepath.Join(dir, p)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return full, nil // missing: reading it says so, naming the file
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", &SetupError{Msg: "output_schema: project directory: " + err.Error(), Err: err}
	}
	if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) {
		return "", outside
	}
	return full, nil
}
