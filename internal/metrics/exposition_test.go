package metrics

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A line-level checker for the text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), plus the
// few rules that span lines: TYPE before samples, one TYPE and HELP per
// family, no duplicate series, and well-formed histograms. It checks what
// promhttp serves for the ledger's registry, an oracle independent of
// client_golang's own encoder.

const (
	reName   = `[a-zA-Z_:][a-zA-Z0-9_:]*`
	reLabel  = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"`
	reBlanks = `[ \t]+`
)

var (
	helpLineRE   = regexp.MustCompile(`^#[ \t]+HELP` + reBlanks + `(` + reName + `)(?:` + reBlanks + `((?:[^\\\n]|\\[\\n])*))?$`)
	helpStartRE  = regexp.MustCompile(`^#[ \t]+HELP\b`)
	typeLineRE   = regexp.MustCompile(`^#[ \t]+TYPE` + reBlanks + `(` + reName + `)` + reBlanks + `(counter|gauge|histogram|summary|untyped)$`)
	typeStartRE  = regexp.MustCompile(`^#[ \t]+TYPE\b`)
	sampleLineRE = regexp.MustCompile(`^[ \t]*(` + reName + `)(\{(?:` + reLabel + `(?:,` + reLabel + `)*,?)?\})?` +
		reBlanks + `(\S+)(?:` + reBlanks + `(-?[0-9]+))?[ \t]*$`)
	labelRE = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"`)
)

// checkExposition returns every problem found in text, one per offending line
// or rule; none means text is valid exposition format.
func checkExposition(text string) []string {
	var problems []string
	bad := func(n int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
	}
	if !utf8.ValidString(text) {
		problems = append(problems, "not valid UTF-8")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		problems = append(problems, "last line does not end in a line feed")
	}
	types := map[string]string{}   // family -> type
	helps := map[string]bool{}     // family -> HELP seen
	sampled := map[string]bool{}   // family -> sample seen
	seen := map[string]bool{}      // sample name + label set
	done := map[string]bool{}      // families whose samples ended (to require grouping)
	hists := map[string]*histRun{} // histogram series by family + labels without le
	var current string             // family of the previous sample
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		n := i + 1
		switch {
		case text == "":
			continue
		case strings.TrimSpace(line) == "":
			continue // blank lines are ignored by parsers
		case helpStartRE.MatchString(line):
			m := helpLineRE.FindStringSubmatch(line)
			if m == nil {
				bad(n, "malformed HELP line %q", line)
				continue
			}
			if helps[m[1]] {
				bad(n, "second HELP for %s", m[1])
			}
			helps[m[1]] = true
		case typeStartRE.MatchString(line):
			m := typeLineRE.FindStringSubmatch(line)
			if m == nil {
				bad(n, "malformed TYPE line %q", line)
				continue
			}
			if _, ok := types[m[1]]; ok {
				bad(n, "second TYPE for %s", m[1])
			}
			if sampled[m[1]] {
				bad(n, "TYPE for %s after its samples", m[1])
			}
			types[m[1]] = m[2]
		case strings.HasPrefix(strings.TrimLeft(line, " \t"), "#"):
			// any other comment
		default:
			m := sampleLineRE.FindStringSubmatch(line)
			if m == nil {
				bad(n, "malformed sample line %q", line)
				continue
			}
			name, labelText, valueText := m[1], m[2], m[3]
			value, err := strconv.ParseFloat(valueText, 64)
			if err != nil {
				bad(n, "value %q: %v", valueText, err)
				continue
			}
			labels := map[string]string{}
			var rest []string // label pairs other than le, in order
			for _, lm := range labelRE.FindAllStringSubmatch(labelText, -1) {
				if _, dup := labels[lm[1]]; dup {
					bad(n, "label %s twice", lm[1])
				}
				labels[lm[1]] = lm[2]
				if lm[1] != "le" {
					rest = append(rest, lm[0])
				}
			}
			family, typ := name, types[name]
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base, ok := strings.CutSuffix(name, suffix); ok && types[base] == "histogram" {
					family, typ = base, "histogram"
				}
				if base, ok := strings.CutSuffix(name, suffix); ok && suffix != "_bucket" && types[base] == "summary" {
					family, typ = base, "summary"
				}
			}
			if typ == "" {
				bad(n, "sample %s has no TYPE line before it", name)
			}
			if family != current {
				if done[family] {
					bad(n, "samples of %s are not grouped together", family)
				}
				done[current] = true
				current = family
			}
			sampled[family] = true
			key := name + labelText
			if seen[key] {
				bad(n, "duplicate series %s", key)
			}
			seen[key] = true
			if typ == "counter" && (value < 0 || math.IsNaN(value)) {
				bad(n, "counter %s has value %v", name, value)
			}
			if typ != "histogram" {
				continue
			}
			series := family + "{" + strings.Join(rest, ",") + "}"
			h := hists[series]
			if h == nil {
				h = &histRun{lastLE: math.Inf(-1)}
				hists[series] = h
			}
			switch strings.TrimPrefix(name, family) {
			case "_bucket":
				le, ok := labels["le"]
				if !ok {
					bad(n, "bucket without le label")
					continue
				}
				bound, err := strconv.ParseFloat(le, 64)
				if err != nil {
					bad(n, "le %q: %v", le, err)
					continue
				}
				if bound <= h.lastLE || value < h.lastCount {
					bad(n, "bucket le=%q out of order or not cumulative", le)
				}
				h.lastLE, h.lastCount = bound, value
				if math.IsInf(bound, +1) {
					h.inf = value
					h.hasInf = true
				}
			case "_count":
				h.count, h.hasCount = value, true
			case "_sum":
				h.hasSum = true
			}
			if _, ok := labels["le"]; ok && !strings.HasSuffix(name, "_bucket") {
				bad(n, "le label on %s", name)
			}
		}
	}
	for series, h := range hists {
		switch {
		case !h.hasInf:
			problems = append(problems, series+": no +Inf bucket")
		case !h.hasCount || !h.hasSum:
			problems = append(problems, series+": missing _sum or _count")
		case h.inf != h.count:
			problems = append(problems, fmt.Sprintf("%s: +Inf bucket %v differs from _count %v", series, h.inf, h.count))
		}
	}
	return problems
}

type histRun struct {
	lastLE, lastCount float64
	inf, count        float64
	hasInf, hasCount  bool
	hasSum            bool
}

// TestCheckerRejects makes sure the checker is not vacuous: each input breaks
// one rule.
func TestCheckerRejects(t *testing.T) {
	for _, text := range []string{
		"# TYPE x counter\nx 1",                                          // no final line feed
		"# TYPE x counter\nx{a=\"1\"}} 1\n",                              // stray brace
		"# TYPE x counter\nx{a=\"\\t\"} 1\n",                             // bad escape in label value
		"# TYPE x counter\nx{a=\"\"\"} 1\n",                              // unescaped quote
		"# TYPE x counter\nx{1a=\"\"} 1\n",                               // bad label name
		"# TYPE x counter\nx{a=\"b\",a=\"c\"} 1\n",                       // label twice
		"# TYPE x counter\nx one\n",                                      // bad value
		"# TYPE x counter\nx 1 1.5\n",                                    // bad timestamp
		"# TYPE x counter\nx 1\nx 2\n",                                   // duplicate series
		"# TYPE x counter\nx -1\n",                                       // negative counter
		"# TYPE 1x counter\n",                                            // bad metric name
		"# TYPE x countr\n",                                              // bad type
		"# TYPE x counter\n# TYPE x counter\n",                           // TYPE twice
		"# HELP x a\\tb\n",                                               // bad escape in HELP
		"# HELP x a\n# HELP x b\n",                                       // HELP twice
		"x 1\n",                                                          // no TYPE
		"# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"\"} 1\n",        // not grouped
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", // no +Inf
		"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",                       // not cumulative
		"# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", // le out of order
		"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",                                             // +Inf != count
		"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",                                                      // no sum
		"# TYPE h histogram\nh_bucket 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",                                 // bucket without le
		"# TYPE x counter\nx{a=\"\xff\"} 1\n",                                                                           // not UTF-8
	} {
		if problems := checkExposition(text); len(problems) == 0 {
			t.Errorf("checker accepted %q", text)
		}
	}
}

func TestCheckerAccepts(t *testing.T) {
	for _, text := range []string{
		"",
		"# HELP x\n# TYPE x untyped\nx 1\n",
		"# some comment\n\n# HELP x Help with \\\\ and \\n.\n# TYPE x counter\nx{a=\"q\\\"\\\\\\n\",} 1e+06 1712345678000\n",
		"# TYPE x gauge\nx NaN\nx{a=\"1\"} -Inf\nx{a=\"2\"} +Inf\nx{a=\"3\"} -0.5\n",
		"# TYPE h histogram\nh_bucket{a=\"x\",le=\"0.1\"} 0\nh_bucket{a=\"x\",le=\"+Inf\"} 3\nh_sum{a=\"x\"} 0.6\nh_count{a=\"x\"} 3\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 3\ns_count 2\n",
	} {
		if problems := checkExposition(text); len(problems) != 0 {
			t.Errorf("checker rejected %q: %v", text, problems)
		}
	}
}
