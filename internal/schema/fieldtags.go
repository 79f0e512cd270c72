package schema

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolcall-go/toolcall/internal/tagcheck"
)

// tagSet holds the tags of a field that the walker reads.
type tagSet struct {
	json, schema, desc, extras string
	hasSchema, hasDesc         bool
	// misspelt is the first key not read that looks meant for one that is
	// (tagcheck.MeantKey); meant is that one.
	misspelt, meant string
}

// readTags reads f's tags in one pass, as reflect.StructTag.Lookup would
// each of them.
func readTags(tag reflect.StructTag) (ts tagSet) {
	var found uint8
	rest := string(tag)
	for rest != "" {
		name, qvalue, r, err := tagcheck.Next(rest)
		if err != nil || name == "" {
			break // Lookup stops where the tag is malformed
		}
		rest = r
		var bit uint8
		var dst *string
		switch name {
		case "json":
			bit, dst = 1, &ts.json
		case "jsonschema":
			bit, dst = 2, &ts.schema
		case "jsonschema_description":
			bit, dst = 4, &ts.desc
		case "jsonschema_extras":
			bit, dst = 8, &ts.extras
		default:
			if ts.misspelt == "" {
				if meant := tagcheck.MeantKey(name); meant != "" {
					ts.misspelt, ts.meant = name, meant
				}
			}
			continue
		}
		if found&bit != 0 {
			continue // Lookup finds the first
		}
		found |= bit
		value, err := unquote(qvalue)
		if err != nil {
			continue // Lookup reports the key absent
		}
		*dst = value
		switch bit {
		case 2:
			ts.hasSchema = true
		case 4:
			ts.hasDesc = true
		}
	}
	return ts
}

// unquote is strconv.Unquote, without its work for a string that has no
// escapes.
func unquote(q string) (string, error) {
	if len(q) < 2 {
		return strconv.Unquote(q)
	}
	for i := 1; i < len(q)-1; i++ {
		if c := q[i]; c == '\\' || c == '\n' || c >= utf8.RuneSelf {
			return strconv.Unquote(q)
		}
	}
	return q[1 : len(q)-1], nil
}

// field applies what invopop's handleField does with a field of a struct
// (st is the struct's schema) whose type's schema is p.
func (w *walker) field(st *sch, tags *tagSet, name string, p *sch, required, nullable bool) {
	w.tags(p, tags)
	if nullable {
		null := w.newSch()
		null.typ = "null"
		wrap := w.newSch()
		wrap.kwd().oneOf = []*sch{p, null}
		p = wrap
	}
	st.setProp(name, p)
	if required {
		st.require(name)
	}
}

// fieldName is invopop's reflectFieldName for a field encoding/json sees.
// name is "" for a field invopop leaves out; embed means its fields are
// taken into the struct's.
func fieldName(f *reflect.StructField, tags *tagSet) (name string, embed, required, nullable bool) {
	jsonName, jsonOpts, _ := strings.Cut(tags.json, ",")
	if jsonName == "-" {
		return "", false, false, false
	}
	if first, _, _ := strings.Cut(tags.schema, ","); first == "-" {
		return "", false, false, false
	}
	required = true
	for o := range strings.SplitSeq(jsonOpts, ",") {
		if o == "omitempty" || o == "omitzero" {
			required = false
			break
		}
	}
	if tags.schema != "" {
		for p := range strings.SplitSeq(tags.schema, ",") {
			switch p {
			case "required":
				required = true
			case "nullable":
				nullable = true
			}
		}
	}
	if f.Anonymous && jsonName == "" {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			return "", true, false, false
		}
	}
	name = f.Name
	if jsonName != "" {
		name = jsonName
	}
	return name, false, required, nullable
}
