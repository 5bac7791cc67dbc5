//go:build !unix

package ccimport

import "io/fs"

type fileID struct{}

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
