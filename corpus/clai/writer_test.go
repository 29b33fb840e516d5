package clai

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// ClaiWriterProcess starts the clai writer helper process
// (TestClaiHelperProcess in clai_live_test.go, in mode "writer" or
// "exclusive") against path and waits until it holds its transaction or
// lock. It is exported for the external tests of this package only (a
// _test.go file). Closing stdin ends it; the returned cmd can also be
// killed to simulate a crash.
func WriterProcess(t *testing.T, mode, path, sid string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClaiHelperProcess$")
	cmd.Env = append(os.Environ(), "CALIB_CLAI_HELPER="+mode, "CALIB_CLAI_DB="+path, "CALIB_CLAI_SESSION="+sid)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		io.Copy(io.Discard, stdout)
	}()
	select {
	case s := <-line:
		if s != "ready\n" {
			t.Fatalf("writer process: %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("writer process did not become ready")
	}
	return cmd, stdin
}
