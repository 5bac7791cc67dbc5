package console

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/sessionledger/ledger/wire"
)

// Viewer is one credential of the console: a bearer token and the scope of
// the ledger's API it reads as, an orchestrator's name (its own sessions,
// as the API answers that orchestrator) or wire.ScopeAll (every session,
// as an auditor).
type Viewer struct {
	// Name says who the viewer is, in the page and the logs.
	Name string `json:"name"`
	// Owner is the API scope the viewer reads as: an orchestrator, or
	// "all".
	Owner string `json:"owner"`
	// Token is the secret the viewer presents: Authorization: Bearer
	// TOKEN, or HTTP Basic with TOKEN as the password.
	Token string `json:"token"`
}

// Every reports whether the viewer sees every tenant.
func (v *Viewer) Every() bool { return v.Owner == wire.ScopeAll }

// Viewers are the credentials a console accepts. Only the tokens' hashes
// are kept.
type Viewers struct {
	list []viewer
}

type viewer struct {
	Viewer
	sum [sha256.Size]byte
}

// MinTokenLen is the shortest token a viewer may have.
const MinTokenLen = 16

// viewersFile is the JSON of a viewers file.
type viewersFile struct {
	Viewers []Viewer `json:"viewers"`
}

// ParseViewers reads a viewers file:
//
//	{"viewers": [{"name": "acme-ops", "owner": "acme", "token": "..."},
//	             {"name": "audit", "owner": "all", "token": "..."}]}
//
// It reports every problem at once: a field it does not know, a viewer
// without a name, an owner that is neither an orchestrator's name nor
// "all", a token shorter than MinTokenLen or with characters a header
// cannot carry, a name or token given twice, no viewer at all.
func ParseViewers(data []byte) (*Viewers, error) {
	var f viewersFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not JSON of {\"viewers\": [{\"name\", \"owner\", \"token\"}, ...]}: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("one JSON object; something follows it")
	}
	var errs []error
	if len(f.Viewers) == 0 {
		errs = append(errs, errors.New("no viewers: list at least one"))
	}
	names, tokens := map[string]bool{}, map[string]bool{}
	vs := &Viewers{}
	for i, v := range f.Viewers {
		at := fmt.Sprintf("viewers[%d]", i)
		if !wire.ValidToken(v.Name) {
			errs = append(errs, fmt.Errorf("%s: name %q: 1 to 64 of A-Z a-z 0-9 _ -", at, v.Name))
		} else if names[v.Name] {
			errs = append(errs, fmt.Errorf("%s: name %q is given twice", at, v.Name))
		}
		names[v.Name] = true
		if v.Owner != wire.ScopeAll && !wire.ValidOwner(v.Owner) {
			errs = append(errs, fmt.Errorf("%s (%s): owner %q: an orchestrator's name (1 to 64 of A-Z a-z 0-9 _ -) or \"all\"", at, v.Name, v.Owner))
		}
		if !validToken(v.Token) {
			errs = append(errs, fmt.Errorf("%s (%s): a token is %d to 512 of A-Z a-z 0-9 - . _ ~ + / = (for example: openssl rand -hex 32)", at, v.Name, MinTokenLen))
		} else if tokens[v.Token] {
			errs = append(errs, fmt.Errorf("%s (%s): its token is another viewer's too", at, v.Name))
		}
		tokens[v.Token] = true
		vs.list = append(vs.list, viewer{Viewer: Viewer{Name: v.Name, Owner: v.Owner}, sum: sha256.Sum256([]byte(v.Token))})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return vs, nil
}

// validToken: a bearer token's characters (RFC 6750's b64token).
func validToken(t string) bool {
	if len(t) < MinTokenLen || len(t) > 512 {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~+/=", c)) {
			return false
		}
	}
	return true
}

// Len is how many viewers there are.
func (vs *Viewers) Len() int { return len(vs.list) }

// find returns the viewer whose token the request presents, nil when it
// presents none or an unknown one. Every viewer's hash is compared, in
// constant time, whichever matches.
func (vs *Viewers) find(r *http.Request) *Viewer {
	token, ok := presented(r)
	if !ok {
		return nil
	}
	sum := sha256.Sum256([]byte(token))
	var found *Viewer
	for i := range vs.list {
		if subtle.ConstantTimeCompare(sum[:], vs.list[i].sum[:]) == 1 {
			v := vs.list[i].Viewer
			found = &v
		}
	}
	return found
}

// presented is the token of a request's Authorization header: a bearer
// token, or the password of HTTP Basic (the user name is not checked: a
// browser's prompt asks for one).
func presented(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok {
		return "", false
	}
	switch strings.ToLower(scheme) {
	case "bearer":
		t := strings.TrimSpace(rest)
		return t, t != ""
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil {
			return "", false
		}
		_, pass, ok := strings.Cut(string(raw), ":")
		return pass, ok && pass != ""
	}
	return "", false
}
