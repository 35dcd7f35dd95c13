package ptx

import (
	"fmt"
	"strconv"
	"strings"
)

// String renders the configuration in the compact text form accepted by
// ParseConfig (and by ISAAC_CONFIG), e.g.
// "ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma".
// The cluster split, the pipelined fragments, the register cap, the
// tensor-copy staging and the persistent grid appear only when there are
// ("kc=2"; "pp=1", "mr=128", "tma=1", "ps=1" at the end), so the forms written before they existed still parse
// and name the same kernels.
func (c GemmConfig) String() string {
	kc, pp := "", ""
	if c.KC > 1 {
		kc = fmt.Sprintf(",kc=%d", c.KC)
	}
	if c.PP != 0 {
		pp = fmt.Sprintf(",pp=%d", c.PP)
	}
	if c.MR != 0 {
		pp += fmt.Sprintf(",mr=%d", c.MR)
	}
	if c.TMA != 0 {
		pp += fmt.Sprintf(",tma=%d", c.TMA)
	}
	if c.PS != 0 {
		pp += fmt.Sprintf(",ps=%d", c.PS)
	}
	return fmt.Sprintf("ms=%d,ns=%d,ml=%d,nl=%d,u=%d,ks=%d,kl=%d,kg=%d%s,va=%d,vb=%d,st=%d,math=%s%s",
		c.MS, c.NS, c.ML, c.NL, c.U, c.KS, c.KL, c.KG, kc, c.VecA, c.VecB, c.Stages, c.Math, pp)
}

// ParseConfig parses the String form. Keys may come in any order, every key
// but kc (default 1), pp, mr, tma and ps (default 0) must be present exactly once,
// spaces around items are ignored.
func ParseConfig(s string) (GemmConfig, error) {
	c := GemmConfig{KC: 1}
	fields := map[string]*int{
		"ms": &c.MS, "ns": &c.NS, "ml": &c.ML, "nl": &c.NL, "u": &c.U,
		"ks": &c.KS, "kl": &c.KL, "kg": &c.KG, "va": &c.VecA, "vb": &c.VecB, "st": &c.Stages,
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return GemmConfig{}, fmt.Errorf("ptx: config item %q is not key=value", item)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if seen[key] {
			return GemmConfig{}, fmt.Errorf("ptx: config key %q repeated", key)
		}
		seen[key] = true
		if key == "math" {
			m, err := ParseMath(val)
			if err != nil {
				return GemmConfig{}, err
			}
			c.Math = m
			continue
		}
		p, ok := fields[key]
		switch key {
		case "kc":
			p, ok = &c.KC, true
		case "pp":
			p, ok = &c.PP, true
		case "mr":
			p, ok = &c.MR, true
		case "tma":
			p, ok = &c.TMA, true
		case "ps":
			p, ok = &c.PS, true
		}
		if !ok {
			return GemmConfig{}, fmt.Errorf("ptx: unknown config key %q", key)
		}
		v, err := strconv.Atoi(val)
		if err != nil || v < 0 || v > 1<<16 {
			return GemmConfig{}, fmt.Errorf("ptx: config %s=%q is not a small non-negative integer", key, val)
		}
		*p = v
	}
	n := len(seen)
	for _, opt := range []string{"kc", "pp", "mr", "tma", "ps"} {
		if seen[opt] {
			n--
		}
	}
	if n != len(fields)+1 {
		return GemmConfig{}, fmt.Errorf("ptx: config %q lacks keys (need ms,ns,ml,nl,u,ks,kl,kg,va,vb,st,math)", s)
	}
	c.KC = c.clusterSize() // kc=0 means no cluster, like kc=1
	return c, nil
}

// ParseGroupedConfig parses a direct grouped kernel's configuration as
// GroupedConfig.String writes it: "direct t256 q4", optionally followed by
// "r2" (rows) and "v4" (channels a thread). It checks the syntax and the
// values' ranges, not a class's legality.
func ParseGroupedConfig(s string) (GroupedConfig, error) {
	f := strings.Fields(s)
	if len(f) < 3 || f[0] != "direct" {
		return GroupedConfig{}, fmt.Errorf("ptx: grouped config %q is not \"direct tN qN [rN] [vN]\"", s)
	}
	var c GroupedConfig
	fields := map[byte]*int{'t': &c.Threads, 'q': &c.Columns, 'r': &c.Rows, 'v': &c.Vec}
	order := "tqrv"
	for i, item := range f[1:] {
		p, ok := fields[item[0]]
		at := strings.IndexByte(order, item[0])
		if !ok || len(item) < 2 || i < 2 && at != i || i >= 2 && at < 2 {
			return GroupedConfig{}, fmt.Errorf("ptx: grouped config %q: item %q", s, item)
		}
		v, err := strconv.Atoi(item[1:])
		if err != nil || v < 1 || *p != 0 {
			return GroupedConfig{}, fmt.Errorf("ptx: grouped config %q: item %q", s, item)
		}
		*p = v
	}
	if c.String() != strings.Join(f, " ") {
		return GroupedConfig{}, fmt.Errorf("ptx: grouped config %q is not in its canonical form %q", s, c.String())
	}
	return c, nil
}
