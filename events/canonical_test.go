package events

import (
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"nested and whitespace", "{ \"z\" : [ 1 , {\"y\":true,\"x\":null} ] }", `{"z":[1,{"x":null,"y":true}]}`},
		{"html characters kept", `{"a":"<b>&"}`, `{"a":"<b>&"}`},
		{"non-ascii kept", `{"a":"é€😀"}`, `{"a":"é€😀"}`},
		{"escaped unicode decoded", `{"a":"\u00e9"}`, `{"a":"é"}`},
		{"control characters", `{"a":"\u0001\n\t"}`, `{"a":"\u0001\n\t"}`},
		{"integers", `[0,-0,1,-1,1e2,10.0]`, `[0,0,1,-1,100,10]`},
		{"fractions", `[0.5,1.25,-3.75]`, `[0.5,1.25,-3.75]`},
		{"large and small", `[1e21,1e-7,123456789012345680000]`, `[1e+21,1e-7,123456789012345680000]`},
		// RFC 8785 section 3.2.3: keys sort by UTF-16 code units, so U+1F600
		// (surrogates D83D DE00) sorts before U+FB33.
		{"utf16 key order", `{"\ufb33":1,"😀":2,"a":3}`, `{"a":3,"😀":2,"דּ":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCanonicalRefusesTrailingData(t *testing.T) {
	if _, err := CanonicalJSON([]byte(`{} {}`)); err == nil {
		t.Fatal("trailing data must be refused")
	}
}

func TestHashIsStable(t *testing.T) {
	a, _ := Hash(map[string]any{"x": 1, "y": []string{"a"}})
	b, _ := Hash(map[string]any{"y": []string{"a"}, "x": 1})
	if a != b || len(a) != len("sha256:")+64 {
		t.Fatalf("hashes %s %s", a, b)
	}
}
