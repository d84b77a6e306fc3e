package restserver

import (
	"encoding/json"
	"fmt"
	"maps"
)

// Storage vending: with Options.StorageConfig set, the server tells every
// client how to reach the warehouse's files — the S3 endpoint, keys, region
// and addressing style — so a client (pyiceberg, iceberg-go's REST client)
// can read and write a table's data files without being configured for the
// store itself. It is opt-in because it hands the server's storage keys to
// every client that may call the catalog (every client when no Credential
// is set): the keys are the server's, not scoped per table.
//
// The properties go into GET /v1/config as defaults (a client's own
// settings win) and into every LoadTableResult's config (what the Iceberg
// REST spec reserves for a table's FileIO settings).

// storageConfigJSON encodes cfg once as the JSON object spliced into
// LoadTableResults; "{}" when there is nothing to vend.
func storageConfigJSON(cfg map[string]string) ([]byte, error) {
	if len(cfg) == 0 {
		return []byte("{}"), nil
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("restserver: encode storage config: %w", err)
	}
	return b, nil
}

// addStorageDefaults puts the vended properties into /v1/config defaults.
func (s *Server) addStorageDefaults(defaults map[string]string) {
	maps.Copy(defaults, s.storageConfig)
}

// tableConfig is LoadTableResult.config: the vended properties, or nil.
func (s *Server) tableConfig() map[string]string { return s.storageConfig }
