package ab

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotABuild is returned by Resolve for a reference that is neither an
// executable file nor a revision of the repository.
var ErrNotABuild = errors.New("neither an executable nor a revision")

// Resolve turns ref into a side: an executable file is run as it is;
// anything else must name a commit of the git repository at repo, which
// is built into dir (see Build). The build's log goes to log.
func Resolve(ctx context.Context, ref, repo, dir string, log func(string)) (Side, error) {
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() {
		if st.Mode()&0o111 == 0 {
			return Side{}, fmt.Errorf("%s: %w (the file is not executable)", ref, ErrNotABuild)
		}
		abs, err := filepath.Abs(ref)
		if err != nil {
			return Side{}, fmt.Errorf("%s: %w", ref, err)
		}
		return Side{Ref: ref, Bin: abs, Revision: stampedRevision(abs)}, nil
	}
	sha, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || sha == "" {
		return Side{}, fmt.Errorf("%s: %w of %s", ref, ErrNotABuild, repo)
	}
	bin, err := Build(ctx, repo, sha, dir, log)
	if err != nil {
		return Side{}, err
	}
	return Side{Ref: ref, Bin: bin, Revision: sha}, nil
}

// Build compiles ./cmd/katbench of commit sha of the repository at repo
// into dir and returns the binary's path. The source is a fresh clone in
// dir that shares repo's objects (git clone --shared), checked out at sha
// and removed again after the build: what is built is exactly the commit,
// never a working tree's uncommitted changes, and repo itself (its
// working tree, index and worktree list) is not changed. The binary
// carries the commit in its build info, so its lines say where they came
// from.
func Build(ctx context.Context, repo, sha, dir string, log func(string)) (string, error) {
	top, err := git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("build %s: %s is not in a git repository: %w", sha, repo, err)
	}
	src, err := os.MkdirTemp(dir, "src-")
	if err != nil {
		return "", fmt.Errorf("build %s: %w", sha, err)
	}
	defer os.RemoveAll(src)
	if log != nil {
		log(fmt.Sprintf("ab: building %.12s from a clean checkout", sha))
	}
	if _, err := git(ctx, "", "clone", "--quiet", "--shared", "--no-checkout", top, src); err != nil {
		return "", fmt.Errorf("build %s: clone: %w", sha, err)
	}
	if _, err := git(ctx, src, "checkout", "--quiet", "--detach", sha); err != nil {
		return "", fmt.Errorf("build %s: checkout: %w", sha, err)
	}
	bin := filepath.Join(dir, "katbench-"+sha[:min(12, len(sha))])
	// -buildvcs=true overrides a GOFLAGS=-buildvcs=false: the binary must
	// carry its own revision, or its lines would name whatever checkout
	// it happens to run in.
	cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/katbench")
	cmd.Dir = src
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build %s: go build: %w%s", sha, err, tail(string(out)))
	}
	return bin, nil
}

// stampedRevision is the vcs.revision a binary's build info carries
// ("+dirty" appended when it was built from a modified tree), or "" when
// it carries none.
func stampedRevision(bin string) string {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
