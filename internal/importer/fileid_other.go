//go:build !unix

package importer

import "io/fs"

type fileID struct{}

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
