package client

import (
	"encoding/json"
	"strconv"

	"github.com/sessionledger/ledger/events"
)

// marshalEvent is the body of an append: json.Marshal of ev and the
// version, struct{Event; V int `json:"v"`}. An event whose data is an
// events.CheckedData (every checked call's) is written by hand, the
// same bytes without reflection; any other data, or an input that is not
// valid JSON (json.Marshal's error), is encoding/json's
// (TestMarshalEventIsJSON, FuzzMarshalEvent).
func marshalEvent(ev Event) ([]byte, error) {
	d, ok := ev.Data.(events.CheckedData)
	if !ok || len(d.Input) > 0 && !json.Valid(d.Input) {
		return json.Marshal(struct {
			Event
			V int `json:"v"`
		}{ev, events.Version})
	}
	b := make([]byte, 0, 160+len(ev.ID)+len(ev.Session)+len(ev.Actor)+len(d.Tool)+len(d.Call)+len(d.Input)+len(d.Unreadable))
	b = append(b, '{')
	if ev.ID != "" {
		b = events.AppendJSONString(append(b, `"id":`...), ev.ID)
		b = append(b, ',')
	}
	b = events.AppendJSONString(append(b, `"type":`...), string(ev.Type))
	if ev.Session != "" {
		b = events.AppendJSONString(append(b, `,"session":`...), string(ev.Session))
	}
	if ev.Actor != "" {
		b = events.AppendJSONString(append(b, `,"actor":`...), ev.Actor)
	}
	b = strconv.AppendInt(append(b, `,"data":{"turn":`...), int64(d.Turn), 10)
	b = events.AppendJSONString(append(b, `,"tool":`...), d.Tool)
	if d.Call != "" {
		b = events.AppendJSONString(append(b, `,"call":`...), d.Call)
	}
	if len(d.Input) > 0 {
		b = events.AppendCompactJSON(append(b, `,"input":`...), d.Input)
	}
	if d.Unreadable != "" {
		b = events.AppendJSONString(append(b, `,"unreadable":`...), d.Unreadable)
	}
	if d.Effect {
		b = append(b, `,"effect":true`...)
	}
	b = strconv.AppendInt(append(b, `},"v":`...), events.Version, 10)
	return append(b, '}'), nil
}
