package outschema

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// strictKeywords are the keywords a strict OpenAI structured output accepts
// (annotations included); a schema with any other keyword is sent with
// strict false, so the endpoint treats it as guidance and odek validates.
var strictKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "definitions": true, "$ref": true,
	"title": true, "description": true, "type": true, "enum": true, "const": true, "anyOf": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true,
	"minItems": true, "maxItems": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
}

// strictEligible reports whether doc is in the strict subset: the root is an
// object schema, every object schema lists all its properties as required
// and sets additionalProperties to false, and only strictKeywords appear.
func strictEligible(doc map[string]any) bool {
	return doc["type"] == "object" && strictSchema(doc)
}

func strictSchema(v any) bool {
	s, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k := range s {
		if !strictKeywords[k] {
			return false
		}
	}
	props, hasProps := s["properties"].(map[string]any)
	if hasProps || s["type"] == "object" {
		if s["additionalProperties"] != false || !requiresAll(s["required"], props) {
			return false
		}
	}
	for _, k := range sortedKeys(props) {
		if !strictSchema(props[k]) {
			return false
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := s[key].(map[string]any)
		for _, k := range sortedKeys(defs) {
			if !strictSchema(defs[k]) {
				return false
			}
		}
	}
	if items, ok := s["items"]; ok && !strictSchema(items) {
		return false
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, sub := range anyOf {
			if !strictSchema(sub) {
				return false
			}
		}
	}
	return true
}

func requiresAll(required any, props map[string]any) bool {
	list, _ := required.([]any)
	if len(list) != len(props) {
		return false
	}
	for _, r := range list {
		name, ok := r.(string)
		if _, in := props[name]; !ok || !in {
			return false
		}
	}
	return true
}

// nameBad is compiled on first use: only a run with an output schema needs it.
var nameBad = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// nameFor derives the response_format name from the title, else the file's
// base name without its extension (and a .schema before it).
func nameFor(doc map[string]any, file string) string {
	title, _ := doc["title"].(string)
	base := filepath.Base(file)
	base = strings.TrimSuffix(strings.TrimSuffix(base, filepath.Ext(base)), ".schema")
	for _, cand := range []string{title, base} {
		n := strings.Trim(nameBad().ReplaceAllString(cand, "_"), "_")
		if len(n) > 64 {
			n = n[:64]
		}
		if n != "" {
			return n
		}
	}
	return "final_answer"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
