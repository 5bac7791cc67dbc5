package projection

// DropPages lets benchmarks start from the pages a commit leaves
// resident: none of the file.
func DropPages(st *Store) { st.dropPages() }
