package envelope

// ValidToolName reports whether t is a tool name the rule-based dialects
// (claude-code, ledger) accept: ^[A-Za-z0-9_-]{1,64}$ as a whole
// (TestValidNames).
func ValidToolName(t string) bool {
	if len(t) == 0 || len(t) > 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidAgentName reports whether a is an agent name those dialects accept:
// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ (TestValidNames).
func ValidAgentName(a string) bool {
	if len(a) == 0 || len(a) > 64 {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i == 0 && !alnum {
			return false
		}
		if !alnum && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}
