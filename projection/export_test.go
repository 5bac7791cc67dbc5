package projection

// MaxSessions lets tests make a state that reads from a store evict every
// session it did not just write.
var MaxSessions = &maxSessions
