package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
)

// kubectl runs o.Kubectl with args (and stdin), returning its stdout; its
// stderr is part of the error.
func (o Options) kubectl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	c := exec.CommandContext(ctx, o.Kubectl, append([]string{"-n", o.Namespace}, args...)...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("kubectl %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// podView is what cluster run reads of a pod.
type podView struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Reason     string `json:"reason"`
		Message    string `json:"message"`
		Conditions []struct {
			Type, Status, Reason, Message string
		} `json:"conditions"`
		ContainerStatuses []struct {
			State struct {
				Waiting    *struct{ Reason, Message string } `json:"waiting"`
				Terminated *struct {
					Reason, Message string
					ExitCode        int `json:"exitCode"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

// fatalWaits are the waiting reasons that never resolve by waiting.
var fatalWaits = map[string]bool{"ImagePullBackOff": true, "ErrImagePull": true, "ErrImageNeverPull": true,
	"InvalidImageName": true, "CreateContainerConfigError": true, "CreateContainerError": true, "CrashLoopBackOff": true}

// podProblem says why a pod can never succeed ("" while it still may).
func podProblem(p podView) string {
	s := p.Status
	for _, c := range s.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
			return "Unschedulable: " + c.Message
		}
	}
	for _, cs := range s.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && fatalWaits[w.Reason] {
			return strings.TrimSpace(w.Reason + ": " + w.Message)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return strings.TrimSpace(fmt.Sprintf("%s (exit %d) %s", t.Reason, t.ExitCode, t.Message))
		}
	}
	if s.Phase == "Failed" {
		return strings.TrimSpace("Failed: " + s.Reason + " " + s.Message)
	}
	return ""
}

// jobPods reads `kubectl get jobs,pods -o json`: the pods, and why the Job
// itself failed ("" while it has not: a deadline, a deleted pod).
func jobPods(out []byte) (pods []podView, failed string, err error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, "", fmt.Errorf("kubectl get: %w", err)
	}
	for _, raw := range list.Items {
		var kind struct {
			Kind   string
			Status struct {
				Conditions []struct{ Type, Status, Reason, Message string }
			}
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			return nil, "", fmt.Errorf("kubectl get: %w", err)
		}
		switch kind.Kind {
		case "Job":
			for _, c := range kind.Status.Conditions {
				if c.Type == "Failed" && c.Status == "True" {
					failed = strings.TrimSpace(c.Reason + ": " + c.Message)
				}
			}
		case "Pod":
			var p podView
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, "", fmt.Errorf("kubectl get: %w", err)
			}
			pods = append(pods, p)
		}
	}
	return pods, failed, nil
}

func phaseSummary(counts map[string]int) string {
	var ks []string
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "no pods yet"
	}
	return strings.Join(parts, ", ")
}

// workerLines copies the result lines of a worker's log (stdout and stderr
// interleaved: the JSON objects are the lines) to w, with host.hostname set
// to the pod's node, and returns how many it copied.
func workerLines(w io.Writer, logs []byte, node string) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m["schema"] == nil {
			continue
		}
		if node != "" && m["host"] != nil {
			var h map[string]json.RawMessage
			if err := json.Unmarshal(m["host"], &h); err != nil {
				return n, fmt.Errorf("host of a result line: %w", err)
			}
			h["hostname"], _ = json.Marshal(node)
			m["host"], _ = json.Marshal(h)
		}
		out, err := json.Marshal(m)
		if err != nil {
			return n, err
		}
		w.Write(out)
		w.Write([]byte{'\n'})
		n++
	}
	return n, sc.Err()
}

func lastLines(b []byte, n int) string {
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
