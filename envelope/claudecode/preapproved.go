package claudecode

import (
	"net/url"
	"regexp"
	"strings"
)

// preapprovedHosts and preapprovedPrefixes are the documentation sites
// Claude Code 2.1.328 lets WebFetch read without asking, after deny and ask
// rules (TestDifferential/i25-webfetch-preapproved*): the release's list,
// a host alone or a host and a path prefix.
var preapprovedHosts = setOf(
	"platform.claude.com", "code.claude.com", "claude.dev", "www.claude.dev", "modelcontextprotocol.io",
	"agentskills.io", "docs.python.org", "en.cppreference.com", "docs.oracle.com", "learn.microsoft.com",
	"developer.mozilla.org", "www.php.net", "docs.swift.org", "kotlinlang.org", "ruby-doc.org",
	"doc.rust-lang.org", "www.typescriptlang.org", "react.dev", "angular.io", "vuejs.org", "nextjs.org",
	"expressjs.com", "nodejs.org", "bun.sh", "jquery.com", "getbootstrap.com", "tailwindcss.com", "d3js.org",
	"threejs.org", "redux.js.org", "webpack.js.org", "jestjs.io", "reactrouter.com", "docs.djangoproject.com",
	"flask.palletsprojects.com", "fastapi.tiangolo.com", "pandas.pydata.org", "numpy.org", "www.tensorflow.org",
	"pytorch.org", "scikit-learn.org", "matplotlib.org", "requests.readthedocs.io", "jupyter.org",
	"laravel.com", "symfony.com", "docs.spring.io", "hibernate.org", "tomcat.apache.org", "gradle.org",
	"maven.apache.org", "asp.net", "dotnet.microsoft.com", "blazor.net", "reactnative.dev", "docs.flutter.dev",
	"developer.apple.com", "developer.android.com", "keras.io", "spark.apache.org", "www.mongodb.com",
	"redis.io", "www.postgresql.org", "dev.mysql.com", "www.sqlite.org", "graphql.org", "prisma.io",
	"docs.getdbt.com", "docs.aws.amazon.com", "cloud.google.com", "kubernetes.io", "www.docker.com",
	"www.terraform.io", "www.ansible.com", "docs.stripe.com", "docs.netlify.com", "devcenter.heroku.com",
	"cypress.io", "selenium.dev", "docs.unity.com", "docs.unrealengine.com", "git-scm.com", "nginx.org",
	"httpd.apache.org",
)

var preapprovedPrefixes = map[string][]string{}

func init() {
	for _, hp := range []string{
		"claude.com/docs", "github.com/anthropics", "github.com/anthropic-experimental",
		"raw.githubusercontent.com/anthropics", "raw.githubusercontent.com/anthropic-experimental", "go.dev/doc",
		"go.dev/ref", "wordpress.org/documentation", "huggingface.co/docs", "www.kaggle.com/docs",
		"vercel.com/docs", "dev.wix.com/docs",
	} {
		h, p, _ := strings.Cut(hp, "/")
		preapprovedPrefixes[h] = append(preapprovedPrefixes[h], "/"+p)
	}
}

var (
	encodedSeparator = regexp.MustCompile(`(?i)%(25)*(2f|5c|2e)`)
	githubRepo       = regexp.MustCompile(`^/[^/]+/[^/]+(/?|/(tree|blob)/main(/.*)?)$`)
	rawMain          = regexp.MustCompile(`^/[^/]+/[^/]+/refs/heads/main/.`)
)

// preapproved reports whether Claude Code 2.1.328 fetches u without
// asking: an http(s) URL whose host (exactly: www.docs.python.org is not
// docs.python.org) is on the list, or whose host and path start with a
// listed prefix (go.dev/doc, not go.dev/blog), no encoded separator in the
// path; on github.com only github.com/anthropics, and for the other GitHub
// prefixes a repository's main branch.
func preapproved(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" && p.Scheme != "http" || p.User != nil {
		return false
	}
	host, path := strings.ToLower(p.Hostname()), p.EscapedPath()
	if preapprovedHosts[host] {
		return true
	}
	if encodedSeparator.MatchString(path) {
		return false
	}
	for _, pre := range preapprovedPrefixes[host] {
		if path != pre && !strings.HasPrefix(path, pre+"/") {
			continue
		}
		switch {
		case host == "github.com" && pre == "/anthropics":
			return true
		case host == "github.com":
			return githubRepo.MatchString(path)
		case host == "raw.githubusercontent.com":
			return rawMain.MatchString(path)
		}
		return true
	}
	return false
}
