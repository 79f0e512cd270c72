package schema

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/tagcheck"
)

// tags is invopop's structKeywordsFromTags: it applies a field's tags to
// p, the schema of the field's type.
func (w *walker) tags(p *sch, tags *tagSet) {
	if tags.desc != "" {
		p.kwd().description = tags.desc
	} else if p.kw != nil {
		p.kw.description = ""
	}
	var unprocessed []string
	if tags.schema != "" {
		var buf [8]string
		unprocessed = w.genericKeywords(p, tagcheck.AppendPieces(buf[:0], tags.schema))
	}
	switch p.typ {
	case "integer", "number", "boolean":
		if tagcheck.HasJSONOption(tags.json, "string") {
			p.typ = "string"
		}
	}
	if len(unprocessed) > 0 {
		switch p.typ {
		case "string":
			p.stringKeywords(unprocessed)
		case "number", "integer":
			w.numericalKeywords(p, unprocessed)
		case "array":
			w.arrayKeywords(p, unprocessed)
		case "boolean":
			p.booleanKeywords(unprocessed)
		}
	}
	if tags.extras != "" {
		var buf [8]string
		for _, e := range tagcheck.AppendPieces(buf[:0], tags.extras) {
			if k, v, ok := strings.Cut(e, "="); ok {
				p.setExtra(k, v)
			}
		}
	}
}

// genericKeywords returns the pieces it leaves to the type's keywords,
// in the space of tags.
func (w *walker) genericKeywords(p *sch, tags []string) []string {
	unprocessed := tags[:0]
	for _, tag := range tags {
		name, val, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch name {
		case "title":
			p.kwd().title = val
		case "description":
			p.kwd().description = val
		case "type":
			p.typ = val
		case "anchor":
			p.kwd().anchor = val
		case "oneof_type", "anyof_type":
			list := &p.kwd().oneOf
			if name == "anyof_type" {
				list = &p.kw.anyOf
			}
			if *list == nil {
				*list = make([]*sch, 0, 1)
			}
			p.typ = ""
			for ty := range strings.SplitSeq(val, ";") {
				s := w.newSch()
				s.typ = ty
				*list = append(*list, s)
			}
		case "oneof_required", "anyof_required", "oneof_ref", "anyof_ref":
			w.legacy = true
		default:
			unprocessed = append(unprocessed, tag)
		}
	}
	return unprocessed
}

func (p *sch) stringKeywords(tags []string) {
	for _, tag := range tags {
		name, val, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch name {
		case "minLength":
			p.kwd().minLength = parseUint(val)
		case "maxLength":
			p.kwd().maxLength = parseUint(val)
		case "pattern":
			p.kwd().pattern = val
		case "format":
			p.kwd().format = val
		case "readOnly":
			p.kwd().readOnly, _ = strconv.ParseBool(val)
		case "writeOnly":
			p.kwd().writeOnly, _ = strconv.ParseBool(val)
		case "default":
			p.kwd().def = val
		case "example":
			p.kwd().examples = append(p.kwd().examples, val)
		case "enum":
			p.kwd().enum = append(p.kwd().enum, val)
		}
	}
}

// twoParts is strings.Split(tag, "=") when that gives exactly two parts,
// as invopop's numerical, boolean and array keywords want.
func twoParts(tag string) (name, val string, ok bool) {
	name, val, ok = strings.Cut(tag, "=")
	return name, val, ok && !strings.Contains(val, "=")
}

func (w *walker) numericalKeywords(p *sch, tags []string) {
	for _, tag := range tags {
		name, val, ok := twoParts(tag)
		if !ok {
			continue
		}
		switch name {
		case "multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum",
			"default", "example", "enum":
		default:
			continue
		}
		num, valid := w.number(val)
		k := p.kwd()
		switch name {
		case "multipleOf":
			k.multipleOf = num
		case "minimum":
			k.minimum = num
		case "maximum":
			k.maximum = num
		case "exclusiveMaximum":
			k.xmaximum = num
		case "exclusiveMinimum":
			k.xminimum = num
		case "default":
			if valid {
				k.def = num
			}
		case "example":
			if valid {
				k.examples = append(k.examples, num)
			}
		case "enum":
			if valid {
				k.enum = append(k.enum, num)
			}
		}
	}
}

// number is invopop's toJSONNumber. A number it accepts that JSON does not
// (+1, 0x10) would fail invopop's marshalling, so the type goes to invopop.
func (w *walker) number(s string) (json.Number, bool) {
	num := json.Number(s)
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return "", false
		}
	}
	if !jsonnode.ValidNumber(s) {
		w.legacy = true
	}
	return num, true
}

func (p *sch) booleanKeywords(tags []string) {
	for _, tag := range tags {
		if name, val, ok := twoParts(tag); ok && name == "default" {
			switch val {
			case "true":
				p.kwd().def = true
			case "false":
				p.kwd().def = false
			}
		}
	}
}

func (w *walker) arrayKeywords(p *sch, tags []string) {
	var defaults []any
	unprocessed := tags[:0]
	for _, tag := range tags {
		name, val, ok := twoParts(tag)
		if !ok {
			continue
		}
		switch name {
		case "minItems":
			p.kwd().minItems = parseUint(val)
		case "maxItems":
			p.kwd().maxItems = parseUint(val)
		case "uniqueItems":
			p.kwd().unique = true
		case "default":
			defaults = append(defaults, val)
		case "format", "pattern":
			if p.items == nil {
				w.legacy = true // invopop panics
				return
			}
			if name == "format" {
				p.items.kwd().format = val
			} else {
				p.items.kwd().pattern = val
			}
		default:
			unprocessed = append(unprocessed, tag)
		}
	}
	if len(defaults) > 0 {
		p.kwd().def = defaults
	}
	if len(unprocessed) == 0 {
		return
	}
	if p.items == nil {
		w.legacy = true // invopop panics
		return
	}
	switch p.items.typ {
	case "string":
		p.items.stringKeywords(unprocessed)
	case "number", "integer":
		w.numericalKeywords(p.items, unprocessed)
	case "boolean":
		p.items.booleanKeywords(unprocessed)
	}
}

func parseUint(s string) optUint {
	v, err := strconv.ParseUint(s, 10, 64)
	return optUint{v, err == nil}
}

// setExtra is invopop's.
func (p *sch) setExtra(key, val string) {
	k := p.kwd()
	for i := range k.extras {
		e := &k.extras[i]
		if e.key != key {
			continue
		}
		switch old := e.val.(type) {
		case string:
			e.val = []string{old, val}
		case []string:
			e.val = append(old, val)
		case int:
			e.val, _ = strconv.Atoi(val)
		case bool:
			e.val = val == "true" || val == "t"
		}
		return
	}
	var x any
	switch {
	case key == "minimum":
		x, _ = strconv.Atoi(val)
	case val == "true":
		x = true
	case val == "false":
		x = false
	default:
		x = val
	}
	k.extras = append(k.extras, extra{key, x})
}
