package openclaw

import "testing"

// TestJSLower: each want is what Node 24 (the pinned runtime) answers for
// the string's toLowerCase().
func TestJSLower(t *testing.T) {
	tests := [][2]string{
		{"VİEW_IMAGE", "vi\u0307ew_image"}, {"ΟΔΥΣΣΕΥΣ", "οδυσσευς"}, {"ΑΣ", "ας"}, {"Σ", "σ"}, {"ΣΑ", "σα"},
		{"AΣ", "aς"}, {"AΣ:b", "aσ:b"}, {"AΣ.", "aς."}, {"A'Σ", "a'ς"}, {"AΣ'B", "aσ'b"}, {"ΑΣ ", "ας "},
		{"ΑΣ1", "ας1"}, {"ΑΣΑ", "ασα"}, {"İ", "i\u0307"}, {"Kelvin\u212a", "kelvink"}, {"ẞ", "ß"}, {"ǅ", "ǆ"},
		{"ΑΣ\u0301", "ας\u0301"}, {"Σ\u0301", "σ\u0301"}, {"x\u00adΣ", "x\u00adς"}, {"ΑΣ-Β", "ας-β"}, {"ῼ", "ῳ"},
		{"ᾈ", "ᾀ"}, {"READ", "read"},
	}
	for _, tt := range tests {
		if got := jsLower(tt[0]); got != tt[1] {
			t.Errorf("jsLower(%q) = %q, want %q", tt[0], got, tt[1])
		}
	}
}
