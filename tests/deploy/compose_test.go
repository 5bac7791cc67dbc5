// Package deploy checks the deployment files at the repository root
// (docker-compose.yml, Dockerfile and the NATS node configs in deploy/nats/)
// against each other, against go.mod and against the flags the real
// `ledger serve` accepts. No Docker engine runs where these tests run, so
// they read the files instead of starting the cluster: a typo in a route, a
// volume two services share or a flag the binary does not know fails here
// rather than on the first `docker compose up`.
package deploy

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"go.yaml.in/yaml/v3"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

const (
	composeName    = "docker-compose.yml"
	dockerfileName = "Dockerfile"
	natsServerMod  = "github.com/nats-io/nats-server/v2"
	// defaultNATSConfig is where the official nats image reads its config.
	defaultNATSConfig = "/etc/nats/nats-server.conf"
	// ledgerData is where a ledger container keeps its projection.
	ledgerData = "/data"
)

// --- the compose file ---

type composeFile struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string       `yaml:"image"`
	Build       *buildSpec   `yaml:"build"`
	Entrypoint  stringList   `yaml:"entrypoint"`
	Command     stringList   `yaml:"command"`
	Hostname    string       `yaml:"hostname"`
	Volumes     []mount      `yaml:"volumes"`
	Ports       []portSpec   `yaml:"ports"`
	DependsOn   dependsOn    `yaml:"depends_on"`
	Healthcheck *healthcheck `yaml:"healthcheck"`
}

// buildSpec is `build: DIR` or `build: {context: DIR, dockerfile: FILE}`.
type buildSpec struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

func (b *buildSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		b.Context = n.Value
		return nil
	}
	type plain buildSpec
	return n.Decode((*plain)(b))
}

// stringList is a list, or a string split on white space (the shell form).
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = strings.Fields(n.Value)
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return err
	}
	*s = l
	return nil
}

// mount is one entry of a service's volumes, short (SOURCE:TARGET[:MODE])
// or long syntax.
type mount struct {
	Type   string `yaml:"type"`
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

func (m *mount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		type plain mount
		if err := n.Decode((*plain)(m)); err != nil {
			return err
		}
		if m.Type == "" {
			m.Type = mountType(m.Source)
		}
		return nil
	}
	parts := strings.Split(n.Value, ":")
	switch len(parts) {
	case 1:
		m.Type, m.Target = "volume", parts[0] // anonymous
	case 2, 3:
		m.Source, m.Target = parts[0], parts[1]
		m.Type = mountType(m.Source)
	default:
		return fmt.Errorf("line %d: volume %q: want SOURCE:TARGET[:MODE]", n.Line, n.Value)
	}
	return nil
}

func mountType(source string) string {
	if source == "" || !(strings.HasPrefix(source, ".") || strings.HasPrefix(source, "/") || strings.HasPrefix(source, "~")) {
		return "volume"
	}
	return "bind"
}

// named reports whether m mounts a named volume.
func (m mount) named() bool { return m.Type == "volume" && m.Source != "" }

// portSpec is one published port, short ([IP:]PUBLISHED:TARGET[/PROTO]) or
// long syntax.
type portSpec struct {
	Raw       string `yaml:"-"`
	HostIP    string `yaml:"host_ip"`
	Published string `yaml:"published"`
	Target    string `yaml:"target"`
	Protocol  string `yaml:"protocol"`
}

func (p *portSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		type plain portSpec
		if err := n.Decode((*plain)(p)); err != nil {
			return err
		}
	} else {
		p.Raw = n.Value
		s := n.Value
		if i := strings.LastIndex(s, "/"); i >= 0 {
			s, p.Protocol = s[:i], s[i+1:]
		}
		parts := strings.Split(s, ":")
		switch len(parts) {
		case 1:
			p.Target = parts[0]
		case 2:
			p.Published, p.Target = parts[0], parts[1]
		case 3:
			p.HostIP, p.Published, p.Target = parts[0], parts[1], parts[2]
		default:
			return fmt.Errorf("line %d: port %q: want [IP:]PUBLISHED:TARGET[/PROTO]", n.Line, n.Value)
		}
	}
	if p.Protocol == "" {
		p.Protocol = "tcp"
	}
	if p.Raw == "" {
		p.Raw = fmt.Sprintf("%s:%s/%s", p.Published, p.Target, p.Protocol)
	}
	return nil
}

// dependsOn maps a service to the condition it waits for; the list form
// means service_started.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	*d = dependsOn{}
	if n.Kind == yaml.SequenceNode {
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		for _, s := range l {
			(*d)[s] = "service_started"
		}
		return nil
	}
	var m map[string]struct {
		Condition string `yaml:"condition"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	for s, c := range m {
		if c.Condition == "" {
			c.Condition = "service_started"
		}
		(*d)[s] = c.Condition
	}
	return nil
}

type healthcheck struct {
	Test    stringList `yaml:"test"`
	Disable bool       `yaml:"disable"`
}

// --- the deployment as a whole ---

// deployment is the compose file with its services sorted into NATS nodes
// and ledger replicas.
type deployment struct {
	root    string // the repository root, where docker-compose.yml lives
	compose composeFile
	nats    []natsNode
	ledgers []ledgerService
}

type natsNode struct {
	name    string // the compose service
	svc     service
	conf    string // the config file on the host, relative to root
	opts    *server.Options
	confErr error
}

type ledgerService struct {
	name string
	svc  service
	args []arg
}

// arg is one flag of a command line.
type arg struct {
	name, value string
	hasValue    bool
}

// repoRoot is the repository root (ledgertest.Root).
func repoRoot(*testing.T) string { return ledgertest.Root() }

func load(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{root: repoRoot(t)}
	raw, err := os.ReadFile(filepath.Join(d.root, composeName))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &d.compose); err != nil {
		t.Fatalf("%s: %v", composeName, err)
	}
	if len(d.compose.Services) == 0 {
		t.Fatalf("%s: no services", composeName)
	}
	for _, name := range slices.Sorted(maps.Keys(d.compose.Services)) {
		svc := d.compose.Services[name]
		switch {
		case isNATSImage(svc.Image):
			n := natsNode{name: name, svc: svc}
			n.conf, n.confErr = natsConfigSource(svc)
			if n.confErr == nil {
				n.opts, n.confErr = server.ProcessConfigFile(filepath.Join(d.root, n.conf))
			}
			d.nats = append(d.nats, n)
		case svc.Build != nil:
			d.ledgers = append(d.ledgers, ledgerService{name: name, svc: svc, args: parseArgs(svc.Command, nil)})
		default:
			t.Errorf("%s: service %q is neither a NATS node (image nats:...) nor a ledger replica (build: ...)", composeName, name)
		}
	}
	return d
}

// isNATSImage reports whether image is the official nats image.
func isNATSImage(image string) bool {
	repo, _ := splitImage(image)
	return repo == "nats"
}

// splitImage splits an image reference into its repository (without the
// Docker Hub library prefix) and tag.
func splitImage(image string) (repo, tag string) {
	repo = image
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo, tag = repo[:i], repo[i+1:]
	}
	repo = strings.TrimPrefix(repo, "docker.io/")
	repo = strings.TrimPrefix(repo, "library/")
	return repo, tag
}

// natsConfigSource returns the host file a NATS service mounts at the path
// its command passes to --config (the image's default path without one).
func natsConfigSource(svc service) (string, error) {
	target := defaultNATSConfig
	for _, a := range parseArgs(svc.Command, nil) {
		if a.name == "config" || a.name == "c" {
			target = a.value
		}
	}
	for _, m := range svc.Volumes {
		if m.Target == target {
			if m.Type != "bind" {
				return "", fmt.Errorf("%s is mounted from volume %q, want a file of the repository", target, m.Source)
			}
			return filepath.Clean(m.Source), nil
		}
	}
	return "", fmt.Errorf("nothing is mounted at the config file %s", target)
}

// parseArgs returns the flags of a command line. A flag takes the next word
// as its value unless it is written -name=value, the next word is a flag,
// or bools says it is a boolean flag.
func parseArgs(cmd []string, bools map[string]bool) []arg {
	var args []arg
	for i := 0; i < len(cmd); i++ {
		w := cmd[i]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			continue
		}
		a := arg{name: strings.TrimLeft(w, "-")}
		if k, v, ok := strings.Cut(a.name, "="); ok {
			a.name, a.value, a.hasValue = k, v, true
		} else if !bools[a.name] && i+1 < len(cmd) && !strings.HasPrefix(cmd[i+1], "-") {
			a.value, a.hasValue = cmd[i+1], true
			i++
		}
		args = append(args, a)
	}
	return args
}

func (l ledgerService) flag(name string) (string, bool) {
	for _, a := range l.args {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// goModVersions returns the go directive and the nats-server version of go.mod.
func goModVersions(t *testing.T, root string) (goVersion, natsServer string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "go":
			goVersion = f[1]
		case len(f) >= 2 && f[0] == natsServerMod:
			natsServer = f[1]
		case len(f) >= 3 && f[0] == "require" && f[1] == natsServerMod:
			natsServer = f[2]
		}
	}
	if goVersion == "" || natsServer == "" {
		t.Fatalf("go.mod: want a go directive and a require of %s, got go %q, nats-server %q", natsServerMod, goVersion, natsServer)
	}
	return goVersion, natsServer
}

// majorMinor returns "1.26" for "1.26.8" and "2.15" for "v2.15.2".
func majorMinor(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return parts[0]
	}
	return parts[0] + "." + parts[1]
}

// tagMatches reports whether an image tag is version mm or a variant of it
// (2.15, 2.15.2, 2.15-alpine, 2.15.2-alpine).
func tagMatches(tag, mm string) bool {
	return tag == mm || strings.HasPrefix(tag, mm+".") || strings.HasPrefix(tag, mm+"-")
}

// --- the tests ---

func TestNATSImageMatchesGoMod(t *testing.T) {
	d := load(t)
	_, natsVersion := goModVersions(t, d.root)
	want := majorMinor(natsVersion)
	if len(d.nats) != 3 {
		t.Errorf("%s: want exactly 3 NATS services (image nats:%s...), got %d", composeName, want, len(d.nats))
	}
	for _, n := range d.nats {
		if _, tag := splitImage(n.svc.Image); !tagMatches(tag, want) {
			t.Errorf("%s: service %q: image %q, want the official nats image tagged %s (go.mod has %s %s)",
				composeName, n.name, n.svc.Image, want, natsServerMod, natsVersion)
		}
	}
}

func TestNATSNodes(t *testing.T) {
	d := load(t)
	if len(d.nats) == 0 {
		t.Fatalf("%s: no NATS services", composeName)
	}
	// hosts maps every name a node is reachable by on the compose network
	// to its service.
	hosts := map[string]string{}
	for _, n := range d.nats {
		hosts[n.name] = n.name
		if n.svc.Hostname != "" {
			hosts[n.svc.Hostname] = n.name
		}
	}
	serverNames := map[string]string{}
	volumeOwner := volumeOwners(d)
	// Settings every node must agree on, by service.
	clusterNames, syncSettings := map[string]string{}, map[string]string{}
	for _, n := range d.nats {
		where := fmt.Sprintf("service %q (%s)", n.name, n.conf)
		if n.confErr != nil {
			t.Errorf("%s: service %q: config: %v", composeName, n.name, n.confErr)
			continue
		}
		o := n.opts
		if o.ServerName == "" {
			t.Errorf("%s: no server_name", where)
		} else if other, dup := serverNames[o.ServerName]; dup {
			t.Errorf("%s: server_name %q is also the name of service %q", where, o.ServerName, other)
		} else {
			serverNames[o.ServerName] = n.name
		}

		if !o.JetStream {
			t.Errorf("%s: JetStream is not enabled", where)
		}
		if o.StoreDir == "" {
			t.Errorf("%s: no jetstream store_dir", where)
		} else if m, ok := mountAt(n.svc, o.StoreDir); !ok || !m.named() {
			t.Errorf("%s: store_dir %s is not a named volume of the service (each node needs its own)", where, o.StoreDir)
		} else if owners := volumeOwner[m.Source]; len(owners) > 1 {
			t.Errorf("%s: store_dir volume %q is shared by services %v", where, m.Source, owners)
		}
		s := syncString(o)
		if s == "" {
			t.Errorf("%s: set jetstream sync_interval explicitly (deploy/README.md, Durability)", where)
		}
		syncSettings[n.name] = s

		if o.Cluster.Name == "" || o.Cluster.Port == 0 {
			t.Errorf("%s: want a cluster block with a name and a listen port, got name %q port %d", where, o.Cluster.Name, o.Cluster.Port)
		}
		clusterNames[n.name] = o.Cluster.Name

		// Routes: every other node, each on its own cluster port.
		routed := map[string]bool{}
		for _, r := range o.Routes {
			target, ok := hosts[r.Hostname()]
			if !ok {
				t.Errorf("%s: route %s names no NATS service of %s", where, r, composeName)
				continue
			}
			if p := nodeByName(d, target).opts; p != nil && r.Port() != strconv.Itoa(p.Cluster.Port) {
				t.Errorf("%s: route %s: %q listens for routes on port %d", where, r, target, p.Cluster.Port)
			}
			routed[target] = true
		}
		for _, other := range d.nats {
			if other.name != n.name && !routed[other.name] {
				want := fmt.Sprintf("nats://%s:%d", other.name, clusterPort(other))
				if clusterPort(other) == 0 {
					want = fmt.Sprintf("nats://%s on its cluster listen port", other.name)
				}
				t.Errorf("%s: no route to node %q (want %s)", where, other.name, want)
			}
		}

		if o.HTTPPort <= 0 {
			t.Errorf("%s: no monitoring port (http_port), which the healthcheck needs", where)
		}
		if hc := n.svc.Healthcheck; hc == nil || hc.Disable || len(hc.Test) == 0 {
			t.Errorf("%s: service %q: no healthcheck (the ledger replicas wait for service_healthy)", composeName, n.name)
		} else if probe := fmt.Sprintf(":%d/healthz", o.HTTPPort); !strings.Contains(strings.Join(hc.Test, " "), probe) {
			t.Errorf("%s: service %q: healthcheck %q does not probe %s (the node's http_port)", composeName, n.name, hc.Test, probe)
		}
	}
	for _, c := range []struct {
		setting string
		values  map[string]string
	}{
		{"cluster name", clusterNames},
		{"jetstream sync_interval", syncSettings},
	} {
		distinct := map[string]bool{}
		var each []string
		for _, name := range slices.Sorted(maps.Keys(c.values)) {
			distinct[c.values[name]] = true
			each = append(each, fmt.Sprintf("%s %q", name, c.values[name]))
		}
		if len(distinct) > 1 {
			t.Errorf("NATS nodes disagree on their %s: %s", c.setting, strings.Join(each, ", "))
		}
	}
}

func nodeByName(d *deployment, name string) natsNode {
	for _, n := range d.nats {
		if n.name == name {
			return n
		}
	}
	return natsNode{}
}

func clusterPort(n natsNode) int {
	if n.opts == nil {
		return 0
	}
	return n.opts.Cluster.Port
}

// clientPort is the node's client port (4222 when the config leaves it out).
func clientPort(n natsNode) int {
	if n.opts == nil || n.opts.Port == 0 {
		return server.DEFAULT_PORT
	}
	return n.opts.Port
}

func syncString(o *server.Options) string {
	switch {
	case o.SyncAlways:
		return "always"
	case o.SyncInterval > 0:
		return o.SyncInterval.String()
	}
	return ""
}

func mountAt(svc service, target string) (mount, bool) {
	for _, m := range svc.Volumes {
		if filepath.Clean(m.Target) == filepath.Clean(target) {
			return m, true
		}
	}
	return mount{}, false
}

// volumeOwners maps every named volume to the services that mount it.
func volumeOwners(d *deployment) map[string][]string {
	owners := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(d.compose.Services)) {
		for _, m := range d.compose.Services[name].Volumes {
			if m.named() && !slices.Contains(owners[m.Source], name) {
				owners[m.Source] = append(owners[m.Source], name)
			}
		}
	}
	return owners
}

func TestLedgerServices(t *testing.T) {
	d := load(t)
	if len(d.ledgers) < 2 {
		t.Errorf("%s: want at least 2 ledger replicas (services with build:), got %d", composeName, len(d.ledgers))
	}
	volumeOwner := volumeOwners(d)
	replicaNames := map[string]string{}
	for _, l := range d.ledgers {
		where := fmt.Sprintf("%s: service %q", composeName, l.name)
		t.Run(l.name, func(t *testing.T) {
			// Built from this repository.
			ctx := filepath.Join(d.root, l.svc.Build.Context)
			if filepath.Clean(ctx) != d.root {
				t.Errorf("%s: build context %q, want the repository root (.)", where, l.svc.Build.Context)
			}
			dockerfile := l.svc.Build.Dockerfile
			if dockerfile == "" {
				dockerfile = dockerfileName
			}
			if _, err := os.Stat(filepath.Join(ctx, dockerfile)); err != nil {
				t.Errorf("%s: build: %v", where, err)
			}
			if len(l.svc.Entrypoint) > 0 {
				t.Errorf("%s: entrypoint %q overrides the image's /ledger", where, l.svc.Entrypoint)
			}
			if len(l.svc.Command) == 0 || l.svc.Command[0] != "serve" {
				t.Errorf("%s: command %q, want `serve` and its flags", where, l.svc.Command)
			}

			// Its own projection.
			data, ok := l.flag("data")
			if !ok {
				t.Errorf("%s: no --data (the directory of the replica's projection)", where)
			} else if m, ok := mountAt(l.svc, data); !ok || !m.named() {
				t.Errorf("%s: --data %s is not a named volume of the service", where, data)
			} else if owners := volumeOwner[m.Source]; len(owners) > 1 {
				t.Errorf("%s: --data volume %q is shared by services %v; every replica needs its own projection", where, m.Source, owners)
			}
			if m, ok := mountAt(l.svc, ledgerData); !ok || !m.named() {
				t.Errorf("%s: no named volume at %s (the image's VOLUME)", where, ledgerData)
			}
			if name, ok := l.flag("name"); ok {
				if other, dup := replicaNames[name]; dup {
					t.Errorf("%s: --name %q is also the name of service %q", where, name, other)
				}
				replicaNames[name] = l.name
			}

			// The whole cluster.
			for _, n := range d.nats {
				if cond, ok := l.svc.DependsOn[n.name]; !ok || cond != "service_healthy" {
					t.Errorf("%s: depends_on %s: %q, want condition service_healthy", where, n.name, cond)
				}
			}
			urls, ok := l.flag("nats")
			if !ok {
				t.Errorf("%s: no --nats (the cluster's client URLs)", where)
			}
			have := map[string]bool{}
			for _, u := range strings.Split(urls, ",") {
				if pu, err := url.Parse(strings.TrimSpace(u)); err == nil {
					have[pu.Host] = true
				}
			}
			for _, n := range d.nats {
				if host := fmt.Sprintf("%s:%d", n.name, clientPort(n)); !have[host] {
					t.Errorf("%s: --nats %q does not name node %q (want nats://%s)", where, urls, n.name, host)
				}
			}
			if r, _ := l.flag("replicas"); r != strconv.Itoa(len(d.nats)) {
				t.Errorf("%s: --replicas %q, want %d (one per NATS node)", where, r, len(d.nats))
			}

			// Metrics published.
			if addr, ok := l.flag("metrics"); ok {
				_, port, err := splitHostPort(addr)
				if err != nil {
					t.Errorf("%s: --metrics %q: %v", where, addr, err)
				} else if !slices.ContainsFunc(l.svc.Ports, func(p portSpec) bool { return p.Target == port && p.Published != "" }) {
					t.Errorf("%s: --metrics %s, but container port %s is not published", where, addr, port)
				}
			}
		})
	}
}

func splitHostPort(addr string) (host, port string, err error) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return "", "", errors.New("want [HOST]:PORT")
	}
	host, port = addr[:i], addr[i+1:]
	if _, err := strconv.Atoi(port); err != nil {
		return "", "", fmt.Errorf("port %q: %v", port, err)
	}
	return host, port, nil
}

func TestVolumesDeclaredAndUsed(t *testing.T) {
	d := load(t)
	owners := volumeOwners(d)
	for _, v := range slices.Sorted(maps.Keys(owners)) {
		if _, ok := d.compose.Volumes[v]; !ok {
			t.Errorf("%s: volume %q (used by %v) is not declared under the top-level volumes:", composeName, v, owners[v])
		}
	}
	for _, v := range slices.Sorted(maps.Keys(d.compose.Volumes)) {
		if _, ok := owners[v]; !ok {
			t.Errorf("%s: volume %q is declared but no service mounts it", composeName, v)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.compose.Services)) {
		for _, m := range d.compose.Services[name].Volumes {
			if m.Type == "bind" {
				if _, err := os.Stat(filepath.Join(d.root, m.Source)); err != nil {
					t.Errorf("%s: service %q mounts %s: %v", composeName, name, m.Source, err)
				}
			}
		}
	}
}

func TestHostPortsUnique(t *testing.T) {
	d := load(t)
	used := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(d.compose.Services)) {
		for _, p := range d.compose.Services[name].Ports {
			if p.Published == "" {
				continue // an ephemeral host port
			}
			key := p.Published + "/" + p.Protocol
			if other, dup := used[key]; dup {
				t.Errorf("%s: service %q publishes host port %s, which service %q publishes too", composeName, name, key, other)
			}
			used[key] = name
		}
	}
	// The brief's contract with orchestrators on the host: some node's
	// client port is published.
	published := false
	for _, n := range d.nats {
		for _, p := range n.svc.Ports {
			published = published || (p.Published != "" && p.Target == strconv.Itoa(clientPort(n)))
		}
	}
	if !published {
		t.Errorf("%s: no NATS node publishes its client port; orchestrators on the host cannot connect", composeName)
	}
}

// instruction is one instruction of a Dockerfile, continuation lines joined.
type instruction struct {
	line    int
	keyword string // upper case
	args    string
}

func readDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		kw, rest, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, keyword: strings.ToUpper(kw), args: strings.TrimSpace(rest)})
		cur.Reset()
	}
	return out
}

func TestDockerfile(t *testing.T) {
	d := load(t)
	goVersion, _ := goModVersions(t, d.root)
	instrs := readDockerfile(t, filepath.Join(d.root, dockerfileName))
	var froms []instruction
	for _, in := range instrs {
		if in.keyword == "FROM" {
			froms = append(froms, in)
		}
	}
	if len(froms) < 2 {
		t.Fatalf("%s: want a multi-stage build (a golang builder and a small final image), got %d FROM lines", dockerfileName, len(froms))
	}
	builder := strings.Fields(froms[0].args)[0]
	if repo, tag := splitImage(builder); repo != "golang" || !tagMatches(tag, majorMinor(goVersion)) {
		t.Errorf("%s:%d: builder %q, want golang:%s (go.mod: go %s)", dockerfileName, froms[0].line, builder, majorMinor(goVersion), goVersion)
	}

	buildRe := regexp.MustCompile(`\bgo build\b.*\s-o\s+(\S+).*\s\./cmd/ledger\b`)
	var out string
	cgoOff := false
	final := froms[len(froms)-1].line
	var copied, entrypoint, volume, expose bool
	for _, in := range instrs {
		if strings.Contains(in.args, "CGO_ENABLED=0") && (in.keyword == "ENV" || in.keyword == "RUN" || in.keyword == "ARG") {
			cgoOff = true
		}
		if in.keyword == "RUN" {
			if m := buildRe.FindStringSubmatch(in.args); m != nil {
				out = m[1]
			}
		}
		if in.line < final {
			continue
		}
		switch in.keyword {
		case "COPY":
			f := strings.Fields(in.args)
			copied = copied || (out != "" && len(f) >= 2 && slices.Contains(f, out) && f[len(f)-1] == "/ledger")
		case "ENTRYPOINT":
			entrypoint = in.args == `["/ledger"]`
		case "VOLUME":
			volume = volume || strings.Contains(in.args, ledgerData)
		case "EXPOSE":
			for _, l := range d.ledgers {
				if addr, ok := l.flag("metrics"); ok {
					if _, port, err := splitHostPort(addr); err == nil && !slices.Contains(strings.Fields(in.args), port) {
						t.Errorf("%s:%d: EXPOSE %s lacks %s, the metrics port of service %q", dockerfileName, in.line, in.args, port, l.name)
					}
				}
			}
			expose = true
		}
	}
	for _, c := range []struct {
		ok   bool
		want string
	}{
		{out != "", "a RUN go build -o FILE ./cmd/ledger"},
		{cgoOff, "CGO_ENABLED=0 for a static binary"},
		{copied || out == "", fmt.Sprintf("the final stage to COPY %s (the go build output) to /ledger", out)},
		{entrypoint, `ENTRYPOINT ["/ledger"] in the final stage`},
		{volume, "VOLUME " + ledgerData + " in the final stage"},
		{expose, "EXPOSE of the metrics port in the final stage"},
	} {
		if !c.ok {
			t.Errorf("%s: want %s", dockerfileName, c.want)
		}
	}
}

// serveFlags builds the real binary and returns the flags `ledger serve
// --help` lists, mapped to whether each is a boolean.
func serveFlags(t *testing.T, root string) map[string]bool {
	t.Helper()
	bin := ledgertest.BuildLedger(t)
	help := exec.CommandContext(t.Context(), bin, "serve", "--help")
	help.Dir = t.TempDir()
	out, err := help.CombinedOutput()
	if err != nil {
		t.Fatalf("ledger serve --help: %v\n%s", err, out)
	}
	// The flag package prints "  -name type" (or "  -name" for a boolean),
	// then the usage on lines indented by a tab.
	flags := map[string]bool{}
	lineRe := regexp.MustCompile(`^  -([A-Za-z0-9][A-Za-z0-9_.-]*)(.*)`)
	for line := range strings.Lines(string(out)) {
		if m := lineRe.FindStringSubmatch(line); m != nil {
			flags[m[1]] = !strings.HasPrefix(m[2], " ") // no type name
		}
	}
	if _, ok := flags["nats"]; !ok {
		t.Fatalf("ledger serve --help lists no -nats flag; cannot read its flags from:\n%s", out)
	}
	return flags
}

func TestLedgerFlagsAccepted(t *testing.T) {
	d := load(t)
	flags := serveFlags(t, d.root)
	known := slices.Sorted(maps.Keys(flags))

	type commandLine struct {
		where string
		cmd   []string
	}
	var lines []commandLine
	for _, l := range d.ledgers {
		lines = append(lines, commandLine{fmt.Sprintf("%s: service %q", composeName, l.name), l.svc.Command})
	}
	for _, in := range readDockerfile(t, filepath.Join(d.root, dockerfileName)) {
		if in.keyword == "CMD" {
			var cmd []string
			if err := yaml.Unmarshal([]byte(in.args), &cmd); err != nil {
				t.Errorf("%s:%d: CMD %s: want the JSON form: %v", dockerfileName, in.line, in.args, err)
				continue
			}
			lines = append(lines, commandLine{fmt.Sprintf("%s:%d: CMD", dockerfileName, in.line), cmd})
		}
	}
	for _, c := range lines {
		if len(c.cmd) == 0 || c.cmd[0] != "serve" {
			t.Errorf("%s: command %q is not `serve ...`", c.where, c.cmd)
			continue
		}
		for _, a := range parseArgs(c.cmd[1:], flags) {
			isBool, ok := flags[a.name]
			switch {
			case !ok:
				t.Errorf("%s: passes --%s, which `ledger serve` does not accept (it accepts: %s)", c.where, a.name, strings.Join(known, ", "))
			case !isBool && !a.hasValue:
				t.Errorf("%s: --%s needs a value", c.where, a.name)
			}
		}
	}
}
