package report

import (
	"fmt"
	"strings"
)

// Overview is the report's time axis as an SVG drawing: one lane per
// session from its start to its completion, a mark for each turn,
// continuation and denial, and a vertical rule across every lane for each
// policy change. The axis is the log's sequence (its total order); times
// are in each mark's title. Every mark links to its row, so the drawing
// works as a map without JavaScript.
type Overview struct {
	Width, Height int
	// Top and Bottom bound the lanes, where the rules are drawn.
	Top, Bottom int
	Lanes       []*Lane
	Rules       []*Mark
	Ticks       []*Tick
}

// Lane is one session's row of the overview.
type Lane struct {
	Y, LabelX int
	Label     string
	Title     string
	Href      string
	X1, X2    int
	Marks     []*Mark
}

// Mark is a point (or a rule) on the axis.
type Mark struct {
	X, Y int
	// Shape is circle, diamond or square; Class colours it.
	Shape  string
	Class  string
	Points string // a diamond's polygon
	// RX and RY are a square's corner.
	RX, RY int
	Href   string
	Title  string
}

// Tick is a labelled sequence on the axis.
type Tick struct {
	X     int
	Label string
}

// The overview's geometry, in CSS pixels.
const (
	ovWidth     = 1200
	ovLabels    = 320 // room for the lane labels, left of the axis
	ovRight     = 24
	ovLaneH     = 30
	ovTop       = 16
	ovAxisH     = 34
	ovLabelRune = 44 // longer labels are shortened (the full key is in the title)
)

func overview(r *Report, n int) *Overview {
	o := &Overview{Width: ovWidth, Top: ovTop}
	plot := ovWidth - ovLabels - ovRight
	x := func(seq uint64) int {
		if n == 0 {
			return ovLabels
		}
		// Each sequence gets a slot; the mark sits in its middle.
		return ovLabels + int((float64(seq)-0.5)*float64(plot)/float64(n))
	}
	for i, sec := range r.Sessions {
		y := ovTop + i*ovLaneH + ovLaneH/2
		lane := &Lane{Y: y, LabelX: 8 + 14*min(sec.Depth, 8), Label: shorten(string(sec.Key), ovLabelRune-min(sec.Depth, 8)*2),
			Title: laneTitle(sec), Href: "#" + sec.Anchor}
		lane.X1, lane.X2 = x(1), x(uint64(n))
		for _, e := range sec.Timeline {
			switch e.Kind {
			case "start", "spawn":
				lane.X1 = x(e.Seq)
			case "complete":
				lane.X2 = x(e.Seq)
			}
			m := &Mark{X: x(e.Seq), Y: y, Href: "#" + e.Anchor, Title: fmt.Sprintf("seq %d %s: %s %s", e.Seq, e.Time, e.Label, e.Text)}
			switch e.Kind {
			case "turn":
				m.Shape, m.Class = "circle", "m-turn"
				if len(e.Turn.Gained) > 0 {
					m.Class = "m-gain"
				}
				if len(e.Turn.Lost) > 0 {
					m.Class = "m-loss"
					var lost []string
					for _, l := range e.Turn.Lost {
						lost = append(lost, l.Tool+" ("+l.Code+")")
					}
					m.Title += "; lost " + strings.Join(lost, ", ")
				}
			case "resume":
				m.Shape, m.Class = "diamond", "m-resume"
				if e.Bad {
					m.Class = "m-fallback"
				}
				m.Points = fmt.Sprintf("%d,%d %d,%d %d,%d %d,%d", m.X, y-7, m.X+7, y, m.X, y+7, m.X-7, y)
			case "check", "refusal":
				if !e.Bad {
					continue
				}
				m.Shape, m.Class, m.RX, m.RY = "square", "m-deny", m.X-5, y-5
			default:
				continue
			}
			lane.Marks = append(lane.Marks, m)
		}
		o.Lanes = append(o.Lanes, lane)
	}
	o.Bottom = ovTop + len(r.Sessions)*ovLaneH
	for _, e := range r.Changes {
		o.Rules = append(o.Rules, &Mark{X: x(e.Seq), Class: "r-" + e.Kind, Href: "#" + e.Anchor,
			Title: fmt.Sprintf("seq %d %s: %s: %s", e.Seq, e.Time, e.Label, e.Text)})
	}
	for _, seq := range ticks(n) {
		o.Ticks = append(o.Ticks, &Tick{X: x(seq), Label: fmt.Sprint(seq)})
	}
	o.Height = o.Bottom + ovAxisH
	return o
}

// ticks picks about ten round sequences to label the axis with.
func ticks(n int) []uint64 {
	if n == 0 {
		return nil
	}
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000} {
		step = s
		if n/s <= 10 {
			break
		}
	}
	var out []uint64
	if step > 1 {
		out = append(out, 1)
	}
	for s := step; s <= n; s += step {
		out = append(out, uint64(s))
	}
	return out
}

// shorten keeps the end of a long key, which tells sessions apart.
func shorten(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return "…" + string(r[len(r)-max+1:])
}

// laneTitle names a session's lane: its key, agent and state, its scope
// and its root's identity.
func laneTitle(sec *Session) string {
	t := fmt.Sprintf("%s (agent %s, %s; scope %s", sec.Key, sec.Agent, sec.State, sec.Scope)
	if who := IdentityText(sec.Identity); who != "" {
		t += "; " + who
	}
	return t + ")"
}
