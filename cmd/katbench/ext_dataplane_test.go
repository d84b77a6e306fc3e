package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nordisk/katbench/scenarios/dataplane"
)

// A data-plane scenario in one file: each round lists the namespaces at
// the lane's catalog's root, which must include the run's namespace.

const extDataName = "data.ext_list_namespaces"

func init() {
	dataplane.RegisterTimed(dataplane.Timed{
		Name:  extDataName,
		Doc:   "list the catalog's root namespaces once per round (a test extension)",
		Order: 50,
		OptIn: true,
		Round: func(ctx context.Context, lane dataplane.Lane, _ int) error {
			nss, err := lane.Catalog.ListNamespaces(ctx, nil)
			if err != nil {
				return err
			}
			if len(nss) == 0 {
				return fmt.Errorf("no namespace at the root of %s's catalog", lane.Target)
			}
			return nil
		},
		Params: map[string]any{"ext_call": "ListNamespaces(root)"},
	})
}

func TestExtDataplane(t *testing.T) {
	if list := extList(t); !strings.Contains(list, extDataName+" ") || !strings.Contains(list, "once per round") {
		t.Errorf("list does not show %s with its description:\n%s", extDataName, list)
	}
	lines := extLines(t, nil, extDataName, "data", "embedded", "--quick", "--scenario", extDataName, "--rounds", "3", "--transports", "http")
	if len(lines) != 1 {
		t.Fatalf("%d lines of %s, want 1", len(lines), extDataName)
	}
	l := lines[0]
	wantMeasured(t, l)
	if l["target"] != "embedded" || l["transport"] != "http" || l["ops"] != 3.0 {
		t.Errorf("target %v transport %v ops %v, want embedded, http, 3 (one per round)", l["target"], l["transport"], l["ops"])
	}
	if params, _ := l["params"].(map[string]any); params["ext_call"] != "ListNamespaces(root)" {
		t.Errorf("params.ext_call %v", params["ext_call"])
	}

	t.Run("misspelt", func(t *testing.T) {
		wantExtUsageError(t, nil, []string{"data", "--quick", "--scenario", "data.ext_list_namespace"}, "data.ext_list_namespace", extDataName)
	})
}
