package importer

// The size limits of an import (see ccimport.ClaudeCodeOptions and
// openclaw.Import). They bound its memory: the parsed form of a file takes
// up to some 20 times its size.
const (
	DefaultMaxFileSize  = 8 << 20
	DefaultMaxTotalSize = 32 << 20
)
