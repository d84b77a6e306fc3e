package uring

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// servedHere reports whether a TCP socket of this process listens on addr
// (its own address or a wildcard one, same port): /proc/self/net/tcp and
// tcp6 give the listening sockets of the network namespace with their
// inodes, and /proc/self/fd says which of those inodes are this process's.
// An error means it could not tell.
func servedHere(addr netip.AddrPort) (bool, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		if err := listeners(f, addr, inodes); err != nil {
			return false, err
		}
	}
	if len(inodes) == 0 {
		return false, nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return false, fmt.Errorf("uring: list this process's descriptors: %w", err)
	}
	for _, e := range ents {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // closed meanwhile (the ReadDir's own descriptor, say)
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// listeners adds to inodes the inode of every socket in the proc table
// file that listens on addr's port at addr's IP or a wildcard IP. A
// missing tcp6 table (IPv6 disabled) is no error.
func listeners(file string, addr netip.AddrPort, inodes map[string]bool) error {
	f, err := os.Open(file)
	if err != nil {
		if os.IsNotExist(err) && strings.HasSuffix(file, "6") {
			return nil
		}
		return fmt.Errorf("uring: read listening sockets: %w", err)
	}
	defer f.Close()
	want := addr.Addr().Unmap()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" { // TCP_LISTEN
			continue
		}
		ip, port, ok := parseProcAddr(fields[1])
		if !ok || port != addr.Port() {
			continue
		}
		if ip = ip.Unmap(); ip.IsUnspecified() || ip == want {
			inodes[fields[9]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("uring: read listening sockets: %w", err)
	}
	return nil
}

// parseProcAddr decodes a proc table address, "0100007F:1F90": the IP as
// 32-bit words in host byte order (little-endian here), the port in
// big-endian hex.
func parseProcAddr(s string) (netip.Addr, uint16, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.Addr{}, 0, false
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.Addr{}, 0, false
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	for i := 0; i < len(raw); i += 4 { // each word back to network order
		binary.BigEndian.PutUint32(raw[i:], binary.LittleEndian.Uint32(raw[i:]))
	}
	ip, _ := netip.AddrFromSlice(raw)
	return ip, uint16(port), true
}
