package serve

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// variant is a value with one leaf field changed, named by its path.
type variant struct {
	path string
	v    any
}

// variants are v with each of its leaf fields (through nested structs and
// arrays) changed in turn; skip names paths left out. A field of a kind
// the keys do not pack fails the test.
func variants(t *testing.T, v any, skip ...string) []variant {
	t.Helper()
	root := reflect.ValueOf(v)
	var out []variant
	var walk func(path string, typ reflect.Type, field func(reflect.Value) reflect.Value)
	walk = func(path string, typ reflect.Type, field func(reflect.Value) reflect.Value) {
		if slices.Contains(skip, path) {
			return
		}
		change := func(set func(reflect.Value)) {
			c := reflect.New(root.Type()).Elem()
			c.Set(root)
			set(field(c))
			out = append(out, variant{path, c.Interface()})
		}
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				walk(path+"."+typ.Field(i).Name, typ.Field(i).Type, func(c reflect.Value) reflect.Value { return field(c).Field(i) })
			}
		case reflect.Array:
			for i := range typ.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), typ.Elem(), func(c reflect.Value) reflect.Value { return field(c).Index(i) })
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			change(func(f reflect.Value) { f.SetInt(f.Int() + 1) })
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			change(func(f reflect.Value) { f.SetUint(f.Uint() + 1) })
		case reflect.Bool:
			change(func(f reflect.Value) { f.SetBool(!f.Bool()) })
		default:
			t.Fatalf("%s: a field of kind %s: pack it into the keys (keys.go), or leave it out here with a reason", path, typ.Kind())
		}
	}
	walk(root.Type().Name(), root.Type(), func(c reflect.Value) reflect.Value { return c })
	return out
}

// Every field of a class and of a shape changes its packed form: two
// decisions never share a key unless everything they depend on is equal. A
// shape's type name is left out: it names its data and compute types,
// which are packed.
func TestDecisionKeysComplete(t *testing.T) {
	class := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T,
		AlignA: 8, AlignB: 4, AlignC: 2, Conv: ptx.ConvOrder(1), Epi: ptx.Epilogue{Act: ptx.Activation(1)}}
	req := benchConvCase.RequestAt(0x7f0000000000, 0x7f0001000000, 0x7f0002000000, &[2]float64{1, 0}, 0)
	shape, r := req.Shape()
	if r != request.Served {
		t.Fatal(r)
	}
	cs := variants(t, class)
	for _, c := range cs {
		if packClass(c.v.(ptx.InputClass)) == packClass(class) {
			t.Errorf("%s: changed, and the packed class did not", c.path)
		}
	}
	ss := variants(t, shape, "ConvShape.Type.Name")
	for _, c := range ss {
		if packShape(c.v.(request.ConvShape)) == packShape(shape) {
			t.Errorf("%s: changed, and the packed shape did not", c.path)
		}
	}
	if len(cs) < 15 || len(ss) < 30 {
		t.Errorf("%d fields of the class and %d of the shape changed: the walk missed some", len(cs), len(ss))
	}
}

// The key types hold 8-byte integers alone, so a sync.Map hashes them in
// one pass (keys.go).
func TestDecisionKeysPlain(t *testing.T) {
	var leaves func(path string, typ reflect.Type)
	leaves = func(path string, typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				f := typ.Field(i)
				if f.Name == "_" {
					t.Errorf("%s: a blank field", path)
				}
				leaves(path+"."+f.Name, f.Type)
			}
		case reflect.Array:
			leaves(path+"[]", typ.Elem())
		case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
			if typ.Size() != 8 {
				t.Errorf("%s: %d bytes", path, typ.Size())
			}
		default:
			t.Errorf("%s: a %s, not an 8-byte integer", path, typ.Kind())
		}
	}
	leaves("decisionKey", reflect.TypeOf(decisionKey{}))
	leaves("convKey", reflect.TypeOf(convKey{}))
}

// BenchmarkDecisionKeys is the lookup of a convolution's decision in a
// sync.Map with the key's making: by its key (plain), and by a struct of
// the class and shape themselves (fields), which the runtime hashes field
// by field.
func BenchmarkDecisionKeys(b *testing.B) {
	req := benchConvCase.RequestAt(0x7f0000000000, 0x7f0001000000, 0x7f0002000000, &[2]float64{1, 0}, 0)
	s, r := req.Shape()
	if r != request.Served {
		b.Fatal(r)
	}
	type fieldsKey struct {
		ctx    uint64
		class  ptx.InputClass
		window ptx.WindowClass
		shape  request.ConvShape
	}
	var plain, fields sync.Map
	d := &convDecision{reason: request.FwdPredicted}
	plain.Store(newConvKey(1, ptx.InputClass{}, req, s), d)
	fields.Store(fieldsKey{ctx: 1, shape: s}, d)
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := plain.Load(newConvKey(1, ptx.InputClass{}, req, s)); !ok {
				b.Fatal("no decision")
			}
		}
	})
	b.Run("fields", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := fields.Load(fieldsKey{ctx: 1, shape: s}); !ok {
				b.Fatal("no decision")
			}
		}
	})
}
