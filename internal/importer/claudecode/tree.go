package ccimport

import "github.com/sessionledger/ledger/internal/jsontree"

// The importer reads both dialects into the one positioned tree of package
// jsontree; these names keep its code and its callers short.
type (
	Value  = jsontree.Value
	Member = jsontree.Member
	Pos    = jsontree.Pos
	Kind   = jsontree.Kind
)

// The kinds of value.
const (
	Null   = jsontree.Null
	Bool   = jsontree.Bool
	Number = jsontree.Number
	String = jsontree.String
	Array  = jsontree.Array
	Object = jsontree.Object
)
