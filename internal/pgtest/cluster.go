package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a throwaway PostgreSQL cluster: a data directory in a temporary
// folder, a unix socket in the same folder and a random loopback port, its
// superuser "postgres" with a random password. Stop it when done; if the
// process that started it ends first, however it ends, the cluster stops and
// its folder is removed all the same.
type Cluster struct {
	// URL reaches the cluster as its superuser over TCP on 127.0.0.1.
	URL string
	// Dir is the temporary folder holding the data directory and the socket.
	Dir string

	cmd      *exec.Cmd
	lifeline *os.File // closing it stops the cluster (see watchdog)
	exited   chan struct{}
}

// BinDir returns the folder of the PostgreSQL server binaries:
// NOTESBENCH_POSTGRES_BIN when it is set, else the newest
// /usr/lib/postgresql/<version>/bin, else the folder of initdb on PATH.
func BinDir() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
		return "", fmt.Errorf("no initdb and postgres in %s (%s)", d, EnvBin)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries: no initdb in /usr/lib/postgresql/*/bin or on PATH")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// runAs is the user the server runs as: nil for the current one, or the
// postgres user when the current one is root, since initdb and postgres refuse
// to run as root.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root and there is no postgres user to run the server as")
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("postgres user has ids %s:%s", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Start initialises and starts a throwaway cluster, with fsync off: a test's
// data need not survive a crash of the machine. It retries once with another
// port when the one it picked was taken in the meantime.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	var msgs []string
	for range 2 {
		c, err := start(ctx, bin, cred)
		if err == nil {
			return c, nil
		}
		msgs = append(msgs, err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.New(strings.Join(msgs, "; then: "))
}

// watchdog runs the server and stops it when the lifeline (fd 3) closes: when
// Stop closes it, or when the process that started the cluster ends, however
// it ends. It then removes the cluster's folder. It prints the server's pid so
// that the starter can tell a server that died at start from one that is slow
// to come up. Arguments: the folder, then the server's command line.
const watchdog = `dir=$1; shift
"$@" 3<&- >>"$dir/log" 2>&1 &
pid=$!
echo "$pid"
( read _ <&3; kill -INT "$pid" 2>/dev/null ) &
wait "$pid"
wait
rm -rf "$dir"
`

func start(ctx context.Context, bin string, cred *syscall.Credential) (c *Cluster, err error) {
	dir, err := os.MkdirTemp("", "notesbench-pg-")
	if err != nil {
		return nil, err
	}
	removeDir := true
	defer func() {
		if removeDir {
			os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	password := randomHex(12)
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(string(out)))
	}
	os.Remove(pwfile)

	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"-c", watchdog, "watchdog", dir, filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
		"-c", "fsync=off", "-c", "full_page_writes=off"}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", args...)
	cmd.ExtraFiles = []*os.File{r}
	// A process group of its own: a Ctrl-C meant for the tests does not reach
	// the server before the lifeline closes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	// From here the watchdog owns the folder.
	removeDir = false
	c = &Cluster{Dir: dir, cmd: cmd, lifeline: w, exited: make(chan struct{})}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	go func() {
		cmd.Wait()
		close(c.exited)
	}()
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/postgres", RawQuery: "sslmode=disable"}
	c.URL = u.String()
	if err := c.waitReady(ctx, pid); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		c.Stop()
		return nil, fmt.Errorf("postgres did not start: %v: %s", err, lastLine(string(log)))
	}
	return c, nil
}

// waitReady waits until the server takes connections, it dies or 30 s pass.
func (c *Cluster) waitReady(ctx context.Context, pid int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(cctx, c.URL)
		ccancel()
		if err == nil {
			return conn.Close(ctx)
		}
		if pid <= 0 || syscall.Kill(pid, 0) != nil {
			return errors.New("the server exited")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after 30 s: %w", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Stop stops the server and removes its folder. It may be called more than
// once.
func (c *Cluster) Stop() error {
	if c.lifeline == nil {
		return nil
	}
	c.lifeline.Close()
	c.lifeline = nil
	select {
	case <-c.exited:
	case <-time.After(60 * time.Second):
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.exited
		return fmt.Errorf("postgres in %s did not stop within 60 s; killed", c.Dir)
	}
	if _, err := os.Stat(c.Dir); err == nil {
		return fmt.Errorf("postgres stopped but %s is still there", c.Dir)
	}
	return nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// lastLine is the last non-empty line of s: where the tools say what failed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
