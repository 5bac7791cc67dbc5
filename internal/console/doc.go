// Package console serves the ledger's live console: one HTML page, rendered
// on the server, with the spawn trees grouped by scope and identity
// (runtime, user, host, project), the stream of denied and asked calls, and
// each one's why trace (the layers, the rule, the record that caused it,
// with its actor and time), kept current as records land by a small inline
// script that reads Server-Sent Events from the same handler.
//
// Everything the console shows it reads through the ledger's API, as the
// viewer's scope: the page from the tree and denials queries, the live
// stream from the served watch and denials long polls (client.Watch,
// client.FollowDenials), and every why trace from the why about a recorded
// call (client.WhyRecord, what 'ledger why --record' prints). So a viewer
// sees exactly what the API shows that scope: an orchestrator's viewer its
// own sessions, an auditor's ("all") every one; the console keeps no state
// of the ledger and filters nothing the API would show.
//
// Who is a viewer: a bearer token from a viewers file (ParseViewers), each
// bound to one API scope, presented as Authorization: Bearer or as the
// password of HTTP Basic (so a browser's prompt works). A console without
// viewers answers loopback connections addressed to a loopback host only,
// as the auditor scope; serving it on any other address is the caller's to
// refuse (ledger serve does).
//
// Caveats: the sessions of a tree are refreshed when one of them starts a
// turn (the watch's changes); a spawn, yield or completion shows at the
// tree's next turn start, or on a reload. The page starts its denials a
// window of records before the head (Config.Window, or ?from=SEQ) and keeps
// the newest MaxDenials of them in the page. Each stream holds two long
// polls on the API, which bounds them per scope (api.Config.MaxWaiting):
// past that bound the client pauses between polls, so many viewers of one
// scope see updates later, never wrong ones.
package console
