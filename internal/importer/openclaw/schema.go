package openclaw

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/jsontree"
)

// The JSON Schema of each pinned OpenClaw release's own config schema
// (OpenClawSchema, which its validateConfigObject checks openclaw.json
// against), generated from the installed package by
// tools/openclaw/schema.mjs: run bash tools/npm/install, then
// go generate ./internal/importer/openclaw.
//
//go:generate bash ../../../tools/openclaw/run schema.mjs .
//go:embed openclaw_schema_*.json
var openclawSchemas embed.FS

// jsonSchema is the part of JSON Schema the generated schemas use.
type jsonSchema struct {
	Type          typeList               `json:"type"`
	Properties    map[string]*jsonSchema `json:"properties"`
	Additional    *jsonSchema            `json:"-"`
	NoAdditional  bool                   `json:"-"`
	PropertyNames *jsonSchema            `json:"propertyNames"`
	Required      []string               `json:"required"`
	Items         *jsonSchema            `json:"items"`
	PrefixItems   []*jsonSchema          `json:"prefixItems"`
	AnyOf         []*jsonSchema          `json:"anyOf"`
	OneOf         []*jsonSchema          `json:"oneOf"`
	AllOf         []*jsonSchema          `json:"allOf"`
	Enum          []any                  `json:"enum"`
	Const         any                    `json:"-"`
	HasConst      bool                   `json:"-"`
	Pattern       string                 `json:"pattern"`
	Flags         string                 `json:"x-flags"`
	Format        string                 `json:"format"`
	MinLength     *int                   `json:"minLength"`
	MaxLength     *int                   `json:"maxLength"`
	MinItems      *int                   `json:"minItems"`
	MaxItems      *int                   `json:"maxItems"`
	Minimum       *float64               `json:"minimum"`
	Maximum       *float64               `json:"maximum"`
	ExclMinimum   *float64               `json:"exclusiveMinimum"`
	ExclMaximum   *float64               `json:"exclusiveMaximum"`
	Version       string                 `json:"x-openclaw-version"`

	re    *regexp.Regexp
	never bool // the schema false: no value
}

type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = typeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

func (s *jsonSchema) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "true":
		return nil
	case "false":
		s.never = true
		return nil
	}
	type plain jsonSchema
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var extra struct {
		Additional json.RawMessage `json:"additionalProperties"`
		Const      json.RawMessage `json:"const"`
	}
	if err := json.Unmarshal(b, &extra); err != nil {
		return err
	}
	switch a := strings.TrimSpace(string(extra.Additional)); a {
	case "", "true":
	case "false":
		s.NoAdditional = true
	default:
		s.Additional = &jsonSchema{}
		if err := json.Unmarshal(extra.Additional, s.Additional); err != nil {
			return err
		}
	}
	if len(extra.Const) > 0 {
		s.HasConst = true
		if err := json.Unmarshal(extra.Const, &s.Const); err != nil {
			return err
		}
	}
	if s.Pattern != "" {
		src := s.Pattern
		if strings.Contains(s.Flags, "i") {
			src = "(?i)" + src
		}
		// A pattern RE2 cannot compile (none of the pinned ones) is not
		// checked; the validator would otherwise refuse what OpenClaw
		// takes.
		s.re, _ = regexp.Compile(src)
	}
	return nil
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonSchema{}
)

// openclawSchema returns the config schema of an OpenClaw release.
func openclawSchema(release string) (*jsonSchema, error) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[release]; ok {
		return s, nil
	}
	name := "openclaw_schema_" + strings.NewReplacer(".", "_", "-", "_").Replace(release) + ".json"
	b, err := openclawSchemas.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("importer: no config schema for openclaw %s in this build (run go generate ./internal/importer/openclaw)", release)
	}
	s := &jsonSchema{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("importer: the config schema of openclaw %s does not decode: %w", release, err)
	}
	schemaCache[release] = s
	return s, nil
}

// schemaIssue is one place where a value breaks the schema.
type schemaIssue struct {
	path string
	at   jsontree.Pos
	msg  string
	// key: the issue is about a key (not recognized, not a valid key, a
	// required key missing), not about a value.
	key bool
}

// validate checks v against s and appends what does not hold, the way
// OpenClaw's validator (zod) reports it: an unrecognized key, a value of
// the wrong type, a value out of range, an option not among the allowed.
//
// Hand-written, not google/jsonschema-go (already in the module graph):
// an issue must carry the position of the value in the user's file (Value
// has it; a decoded any does not), read as OpenClaw's zod reads it
// (JavaScript counts a string's length in UTF-16 units, and a union
// reports the issues of its first form of the value's type), and say it in
// zod's words. What it accepts and refuses is compared with the release's
// own validator by TestImporterAgainstTheRelease (tests/openclawdiff).
// Each keyword group has its own validator below.
func (s *jsonSchema) validate(v *jsontree.Value, path string, out *[]schemaIssue) {
	if s == nil {
		return
	}
	add := func(at jsontree.Pos, format string, args ...any) {
		*out = append(*out, schemaIssue{path: path, at: at, msg: fmt.Sprintf(format, args...)})
	}
	if s.never {
		add(v.Pos, "invalid input: no value is allowed here")
		return
	}
	for _, sub := range s.AllOf {
		sub.validate(v, path, out)
	}
	if alts := append(append([]*jsonSchema{}, s.AnyOf...), s.OneOf...); len(alts) > 0 {
		validateAlternatives(alts, v, path, out)
	}
	if len(s.Type) > 0 && !s.typeMatches(v) {
		add(v.Pos, "invalid input: expected %s, received %s", strings.Join(s.Type, " or "), describeKind(v))
		return
	}
	s.validateConst(v, add)
	switch v.Kind {
	case jsontree.Object:
		s.validateObject(v, path, out)
	case jsontree.Array:
		s.validateArray(v, path, out, add)
	case jsontree.String:
		s.validateString(v, add)
	case jsontree.Number:
		s.validateNumber(v, add)
	}
}

// addIssue appends an issue about a value at a position.
type addIssue func(at jsontree.Pos, format string, args ...any)

// validateConst checks const and enum.
func (s *jsonSchema) validateConst(v *jsontree.Value, add addIssue) {
	if s.HasConst && !sameJSON(v, s.Const) {
		add(v.Pos, "invalid input: expected %s", jsonText(s.Const))
	}
	if len(s.Enum) == 0 {
		return
	}
	var opts []string
	for _, e := range s.Enum {
		if sameJSON(v, e) {
			return
		}
		opts = append(opts, jsonText(e))
	}
	add(v.Pos, "invalid option: expected one of %s", strings.Join(opts, "|"))
}

// validateObject checks properties, propertyNames, additionalProperties
// and required.
func (s *jsonSchema) validateObject(v *jsontree.Value, path string, out *[]schemaIssue) {
	keys := map[string]bool{}
	for _, m := range v.Members {
		keys[m.Key] = true
		mp := importer.JoinPath(path, m.Key)
		if p, ok := s.Properties[m.Key]; ok {
			p.validate(m.Value, mp, out)
			continue
		}
		if s.PropertyNames != nil {
			key := &jsontree.Value{Kind: jsontree.String, Pos: m.KeyPos, Str: m.Key}
			var iss []schemaIssue
			s.PropertyNames.validate(key, mp, &iss)
			for _, i := range iss {
				*out = append(*out, schemaIssue{path: path, at: m.KeyPos, msg: fmt.Sprintf("key %q: %s", m.Key, i.msg), key: true})
			}
		}
		switch {
		case s.Additional != nil:
			s.Additional.validate(m.Value, mp, out)
		case s.NoAdditional:
			*out = append(*out, schemaIssue{path: path, at: m.KeyPos, msg: fmt.Sprintf("unrecognized key: %q", m.Key), key: true})
		}
	}
	for _, r := range s.Required {
		if !keys[r] {
			*out = append(*out, schemaIssue{path: path, at: v.Pos, msg: fmt.Sprintf("invalid input: %s is required", importer.JoinPath(path, r)), key: true})
		}
	}
}

// validateArray checks prefixItems, items, minItems and maxItems.
func (s *jsonSchema) validateArray(v *jsontree.Value, path string, out *[]schemaIssue, add addIssue) {
	for i, e := range v.Elems {
		switch {
		case i < len(s.PrefixItems):
			s.PrefixItems[i].validate(e, importer.IndexPath(path, i), out)
		case s.Items != nil:
			s.Items.validate(e, importer.IndexPath(path, i), out)
		}
	}
	if s.MinItems != nil && len(v.Elems) < *s.MinItems {
		add(v.Pos, "too small: expected array to have >=%d items", *s.MinItems)
	}
	if s.MaxItems != nil && len(v.Elems) > *s.MaxItems {
		add(v.Pos, "too big: expected array to have <=%d items", *s.MaxItems)
	}
}

// validateString checks minLength and maxLength (in UTF-16 units, as
// JavaScript counts them), pattern and format.
func (s *jsonSchema) validateString(v *jsontree.Value, add addIssue) {
	n := len(utf16.Encode([]rune(v.Str)))
	if s.MinLength != nil && n < *s.MinLength {
		add(v.Pos, "too small: expected string to have >=%d characters", *s.MinLength)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		add(v.Pos, "too big: expected string to have <=%d characters", *s.MaxLength)
	}
	if s.re != nil && !s.re.MatchString(v.Str) {
		add(v.Pos, "invalid string: must match pattern %s", s.Pattern)
	}
	switch s.Format {
	case "uri":
		if u, err := url.Parse(v.Str); err != nil || u.Scheme == "" {
			add(v.Pos, "invalid URL")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, v.Str); err != nil {
			add(v.Pos, "invalid ISO datetime")
		}
	}
}

// validateNumber checks minimum, maximum and their exclusive forms.
func (s *jsonSchema) validateNumber(v *jsontree.Value, add addIssue) {
	f, _ := strconv.ParseFloat(v.Num, 64)
	if s.Minimum != nil && f < *s.Minimum {
		add(v.Pos, "too small: expected number to be >=%s", fnum(*s.Minimum))
	}
	if s.ExclMinimum != nil && f <= *s.ExclMinimum {
		add(v.Pos, "too small: expected number to be >%s", fnum(*s.ExclMinimum))
	}
	if s.Maximum != nil && f > *s.Maximum {
		add(v.Pos, "too big: expected number to be <=%s", fnum(*s.Maximum))
	}
	if s.ExclMaximum != nil && f >= *s.ExclMaximum {
		add(v.Pos, "too big: expected number to be <%s", fnum(*s.ExclMaximum))
	}
}

// validateAlternatives checks a union (anyOf, and oneOf, which zod's unions
// also mean as "any"): the value must take one of the forms. When none
// takes it, the issues of the first form of the value's own type say best
// what is wrong; else the value is of no form's type.
func validateAlternatives(alts []*jsonSchema, v *jsontree.Value, path string, out *[]schemaIssue) {
	var typed []schemaIssue
	haveTyped := false
	for _, alt := range alts {
		var iss []schemaIssue
		alt.validate(v, path, &iss)
		if len(iss) == 0 {
			return
		}
		if !haveTyped && len(alt.Type) > 0 && !alt.HasConst && alt.typeMatches(v) {
			typed, haveTyped = iss, true
		}
	}
	switch {
	case constOptions(alts) != "":
		*out = append(*out, schemaIssue{path: path, at: v.Pos, msg: "invalid option: expected one of " + constOptions(alts)})
	case haveTyped:
		*out = append(*out, typed...)
	default:
		*out = append(*out, schemaIssue{path: path, at: v.Pos, msg: "invalid input: " + describeKind(v) + " matches none of the forms it may take"})
	}
}

// constOptions lists the alternatives when every one is a constant (an
// enum written as a union of literals), "" otherwise.
func constOptions(alts []*jsonSchema) string {
	var out []string
	for _, a := range alts {
		if !a.HasConst {
			return ""
		}
		out = append(out, jsonText(a.Const))
	}
	return strings.Join(out, "|")
}

func (s *jsonSchema) typeMatches(v *jsontree.Value) bool {
	if len(s.Type) == 0 {
		return true
	}
	for _, t := range s.Type {
		switch t {
		case "object":
			if v.Kind == jsontree.Object {
				return true
			}
		case "array":
			if v.Kind == jsontree.Array {
				return true
			}
		case "string":
			if v.Kind == jsontree.String {
				return true
			}
		case "boolean":
			if v.Kind == jsontree.Bool {
				return true
			}
		case "null":
			if v.Kind == jsontree.Null {
				return true
			}
		case "number":
			if v.Kind == jsontree.Number && v.NonFinite == "" {
				return true
			}
		case "integer":
			if v.Kind == jsontree.Number && v.NonFinite == "" {
				if f, err := strconv.ParseFloat(v.Num, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53-1 {
					return true
				}
			}
		}
	}
	return false
}

func describeKind(v *jsontree.Value) string {
	switch v.Kind {
	case jsontree.Number:
		if v.NonFinite != "" {
			return v.NonFinite
		}
		return "number"
	case jsontree.Bool:
		return "boolean"
	case jsontree.Null:
		return "null"
	case jsontree.Array:
		return "array"
	case jsontree.Object:
		return "object"
	}
	return "string"
}

// sameJSON compares a value with a decoded JSON constant.
func sameJSON(v *jsontree.Value, c any) bool {
	switch c := c.(type) {
	case nil:
		return v.Kind == jsontree.Null
	case bool:
		return v.Kind == jsontree.Bool && v.Bool == c
	case string:
		return v.Kind == jsontree.String && v.Str == c
	case float64:
		f, err := strconv.ParseFloat(v.Num, 64)
		return v.Kind == jsontree.Number && v.NonFinite == "" && err == nil && f == c
	}
	return false
}

func jsonText(c any) string {
	b, _ := json.Marshal(c)
	return string(b)
}

func fnum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// sortIssues orders issues by where they were written.
func sortIssues(iss []schemaIssue) {
	sort.SliceStable(iss, func(i, j int) bool {
		if iss[i].at.Line != iss[j].at.Line {
			return iss[i].at.Line < iss[j].at.Line
		}
		return iss[i].at.Col < iss[j].at.Col
	})
}
