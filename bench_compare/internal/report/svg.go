package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Geometry of the SVG plot, in pixels.
const (
	svgMarginLeft  = 70.0  // y axis ticks and label
	svgMarginRight = 24.0  //
	svgPlotTop     = 96.0  // below title, subtitle and legend
	svgPlotHeight  = 300.0 //
	svgSlotMin     = 40.0  // horizontal room of one input with two bars
	svgBarMax      = 14.0  // widest bar
	svgSuiteGap    = 18.0  // room between two suites
	svgMinWidth    = 560.0 // room for the title and the legend
	svgCharW       = 6.2   // estimated width of one character at 10–11 px
	svgSubCharW    = 6.6   // of one character of the subtitle
	svgTitleCharW  = 9.8   // of one character of the title (16 px bold)
)

// Colors of the series: the vendor, ISAAC, then the Alts in first-seen order.
var (
	svgVendorColor = "#4c72b0"
	svgOursColor   = "#dd8452"
	svgAltColors   = []string{"#55a868", "#8172b3", "#937860", "#da8bc3", "#64b5cd", "#ccb974"}
	svgWinColor    = "#1a7f37"
	svgLossColor   = "#cf222e"
)

// xmlEscaper escapes text and attribute values.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// xmlText makes s safe as XML 1.0 character data or attribute value:
// invalid UTF-8 and characters XML forbids become U+FFFD, markup is escaped.
func xmlText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(c rune) rune {
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			return ' '
		case c < 0x20, c == 0xFFFE, c == 0xFFFF:
			return '\uFFFD'
		}
		return c
	}, s)
	return xmlEscaper.Replace(s)
}

// px formats a coordinate with one decimal (deterministic, compact).
func px(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// svgScale maps TFLOP/s to a y pixel.
type svgScale struct {
	log    bool
	lo, hi float64 // value range of the axis
	bottom float64 // pixel of lo
	top    float64 // pixel of hi
}

func (s svgScale) y(v float64) float64 {
	if math.IsNaN(v) || v <= 0 && s.log {
		return s.bottom
	}
	var f float64
	if s.log {
		f = (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	} else {
		f = (v - s.lo) / (s.hi - s.lo)
	}
	f = math.Max(0, math.Min(1, f))
	return s.bottom - f*(s.bottom-s.top)
}

// ticks lists the labelled values of the axis.
func (s svgScale) ticks() []float64 {
	var t []float64
	if s.log {
		e0, e1 := int(math.Round(math.Log10(s.lo))), int(math.Round(math.Log10(s.hi)))
		for e := e0; e <= e1; e++ {
			t = append(t, math.Pow(10, float64(e)))
		}
		return t
	}
	step := niceStep(s.hi / 5)
	for i := 0; ; i++ {
		v := float64(i) * step
		if v > s.hi*(1+1e-9) {
			break
		}
		t = append(t, v)
	}
	return t
}

// niceStep is the smallest of 1, 2, 2.5, 5 × 10^k at least x.
func niceStep(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel formats an axis value (0.001, 0.5, 2.5, 10, 1e+06).
func tickLabel(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// svgValues are the plotted rates of one row: vendor, ISAAC, each Alt (in
// row order), and the roofline (0 when unknown).
func svgValues(r Row) (bars []float64, roof float64) {
	bars = append(bars, r.tflops(r.VendorUS), r.tflops(r.OursUS))
	for _, a := range r.Alt {
		bars = append(bars, r.tflops(a.US))
	}
	return bars, r.tflops(r.RooflineUS)
}

// chooseScale picks a linear axis from 0, or a log10 axis over whole
// decades when the positive values span more than 50×.
func chooseScale(rows []Row, bottom, top float64) svgScale {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rows {
		bars, roof := svgValues(r)
		for _, v := range append(bars, roof) {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	s := svgScale{bottom: bottom, top: top}
	if hi == 0 {
		s.lo, s.hi = 0, 1
		return s
	}
	if hi/lo > 50 {
		s.log = true
		// A value on a decade boundary would get a bar of no height: the
		// axis starts a decade lower then.
		s.lo = math.Pow(10, math.Floor(math.Log10(lo)-1e-9))
		if s.lo >= lo*0.999 {
			s.lo /= 10
		}
		s.hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		if s.hi <= s.lo {
			s.hi = s.lo * 10
		}
		return s
	}
	// Headroom above the highest bar for its speed-up label.
	step := niceStep(hi * 1.08 / 5)
	s.lo, s.hi = 0, math.Ceil(hi*1.08/step-1e-9)*step
	return s
}

// inputLabel is the x-axis label of a row, e.g. "2560x16x2560 NN".
func inputLabel(r Row) string {
	s := fmt.Sprintf("%dx%dx%d", r.M, r.N, r.K)
	if r.Name != "" {
		s = r.Name
	}
	if r.Layout != "" {
		s += " " + r.Layout
	}
	return s
}

// svgGroup is a run of consecutive rows of one suite.
type svgGroup struct {
	label      string
	first, end int // rows[first:end]
}

func svgGroups(rows []Row) []svgGroup {
	var gs []svgGroup
	for i, r := range rows {
		if len(gs) > 0 && gs[len(gs)-1].label == r.Suite {
			gs[len(gs)-1].end = i + 1
			continue
		}
		gs = append(gs, svgGroup{label: r.Suite, first: i, end: i + 1})
	}
	return gs
}

// mixedDTypes reports whether rows hold more than one dtype (the x labels
// then name it).
func mixedDTypes(rows []Row) bool {
	for _, r := range rows {
		if r.DType != rows[0].DType {
			return true
		}
	}
	return false
}

// writeSVG writes a self-contained bar chart of rows: for every input the
// vendor's and ISAAC's TFLOP/s side by side (plus one bar per Alt), the
// speed-up above each group of bars (green when ≥ 1, red otherwise), and a
// dash at the roofline rate. Inputs are grouped by consecutive runs of one
// suite, in the order of rows; x labels read "MxNxK LAYOUT", with the dtype
// appended when the rows mix dtypes. The y axis is linear from 0, or log10 when the positive values span
// more than 50×. Bars carry class="bar …", roofline dashes class="roofline",
// speed-up labels class="speedup". The output depends only on the arguments.
func writeSVG(w io.Writer, title string, env Env, rows []Row) error {
	names := altNames(rows)
	altColor := map[string]string{}
	for i, n := range names {
		altColor[n] = svgAltColors[i%len(svgAltColors)]
	}
	mixed := mixedDTypes(rows)
	label := func(r Row) string {
		if mixed {
			return inputLabel(r) + " " + r.DType
		}
		return inputLabel(r)
	}
	maxBars := 2
	maxLabel := 0
	for _, r := range rows {
		maxBars = max(maxBars, 2+len(r.Alt))
		maxLabel = max(maxLabel, utf8.RuneCountInString(label(r)))
	}
	slot := math.Max(svgSlotMin, 12*float64(maxBars)+16)
	barW := math.Min(svgBarMax, (slot-12)/float64(maxBars))
	groups := svgGroups(rows)

	plotW := float64(len(rows)) * slot
	if len(groups) > 1 {
		plotW += float64(len(groups)-1) * svgSuiteGap
	}
	if len(rows) == 0 {
		plotW = 200
	}
	vend, vv := vendor(rows), vendorVersion(rows, env)
	sub := nonEmpty(env.Device, env.Driver, cond(vv != "", vend+" "+vv), env.Date)
	subtitle := strings.Join(sub, " · ")
	type entry struct{ label, color string }
	legend := []entry{{vend, svgVendorColor}, {"ISAAC", svgOursColor}}
	for _, n := range names {
		legend = append(legend, entry{"ISAAC (" + n + ")", altColor[n]})
	}
	legendNote := "speed-up = " + vend + " time / ISAAC time"

	// Wide enough for the inputs, and for the title, subtitle and legend.
	width := math.Max(svgMinWidth, svgMarginLeft+plotW+svgMarginRight)
	legendW := (18 + 8*svgCharW + 16) + float64(utf8.RuneCountInString(legendNote))*svgCharW
	for _, e := range legend {
		legendW += 14 + float64(utf8.RuneCountInString(e.label))*svgCharW + 16
	}
	textW := math.Max(legendW, math.Max(
		float64(utf8.RuneCountInString(title))*svgTitleCharW,
		float64(utf8.RuneCountInString(subtitle))*svgSubCharW))
	width = math.Max(width, math.Ceil(svgMarginLeft+textW+svgMarginRight))
	bottom := svgPlotTop + svgPlotHeight
	labelDepth := float64(maxLabel)*svgCharW + 12
	suiteY := bottom + labelDepth + 22
	height := suiteY + 20

	sc := chooseScale(rows, bottom, svgPlotTop)
	left := svgMarginLeft
	right := left + plotW

	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	p("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"Helvetica, Arial, sans-serif\">\n",
		px(width), px(height), px(width), px(height))
	p("<rect x=\"0\" y=\"0\" width=\"%s\" height=\"%s\" fill=\"#ffffff\"/>\n", px(width), px(height))

	// Title and provenance.
	p("<text class=\"title\" x=\"%s\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", px(left), xmlText(title))
	p("<text class=\"subtitle\" x=\"%s\" y=\"44\" font-size=\"11\" fill=\"#444444\">%s</text>\n", px(left), xmlText(subtitle))

	// Legend.
	lx, ly := left, 66.0
	for _, e := range legend {
		p("<rect class=\"legend-swatch\" x=\"%s\" y=\"%s\" width=\"10\" height=\"10\" fill=\"%s\"/>\n", px(lx), px(ly-9), e.color)
		p("<text x=\"%s\" y=\"%s\" font-size=\"11\">%s</text>\n", px(lx+14), px(ly), xmlText(e.label))
		lx += 14 + float64(utf8.RuneCountInString(e.label))*svgCharW + 16
	}
	p("<line class=\"legend-roofline\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"2\"/>\n", px(lx), px(ly-4), px(lx+14), px(ly-4))
	p("<text x=\"%s\" y=\"%s\" font-size=\"11\">roofline</text>\n", px(lx+18), px(ly))
	lx += 18 + 8*svgCharW + 16
	p("<text x=\"%s\" y=\"%s\" font-size=\"11\" fill=\"#444444\">%s</text>\n", px(lx), px(ly), legendNote)

	// Axes, ticks and gridlines.
	axisLabel := "TFLOP/s"
	if sc.log {
		axisLabel = "TFLOP/s (log scale)"
	}
	p("<g class=\"y-axis\" font-size=\"10\">\n")
	for _, t := range sc.ticks() {
		y := sc.y(t)
		p("<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n", px(left), px(y), px(right), px(y))
		p("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"1\"/>\n", px(left-4), px(y), px(left), px(y))
		p("<text class=\"tick\" x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", px(left-7), px(y+3.5), tickLabel(t))
	}
	p("</g>\n")
	midY := (svgPlotTop + bottom) / 2
	p("<text class=\"axis-label\" x=\"18\" y=\"%s\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 18 %s)\">%s</text>\n", px(midY), px(midY), axisLabel)

	if len(rows) == 0 {
		p("<text x=\"%s\" y=\"%s\" font-size=\"12\" text-anchor=\"middle\" fill=\"#444444\">no rows</text>\n", px((left+right)/2), px(midY))
	}

	// Bars, roofline dashes, speed-ups and input labels.
	x := left
	for gi, g := range groups {
		if gi > 0 {
			x += svgSuiteGap
		}
		gx0 := x
		p("<g class=\"suite\">\n")
		for i := g.first; i < g.end; i++ {
			r := rows[i]
			bars, roof := svgValues(r)
			colors := []string{svgVendorColor, svgOursColor}
			classes := []string{"bar vendor", "bar ours"}
			labels := []string{vend, "ISAAC"}
			times := []float64{r.VendorUS, r.OursUS}
			for _, a := range r.Alt {
				colors = append(colors, altColor[a.Name])
				classes = append(classes, "bar alt")
				labels = append(labels, "ISAAC ("+a.Name+")")
				times = append(times, a.US)
			}
			in := label(r)
			cx := x + slot/2
			bx := cx - barW*float64(len(bars))/2
			topY := bottom
			for j, v := range bars {
				y := sc.y(v)
				if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					y = bottom
				}
				topY = math.Min(topY, y)
				p("<rect class=\"%s\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"><title>%s</title></rect>\n",
					classes[j], px(bx+float64(j)*barW), px(y), px(barW), px(bottom-y), colors[j],
					xmlText(fmt.Sprintf("%s, %s %s %s: %s µs, %s TFLOP/s", labels[j], r.Suite, r.DType, inputLabel(r),
						num(times[j], 2, "", "-"), num(v, 2, "", "-"))))
			}
			if roof > 0 && !math.IsInf(roof, 0) {
				y := sc.y(roof)
				topY = math.Min(topY, y)
				p("<line class=\"roofline\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"2\"><title>%s</title></line>\n",
					px(x+4), px(y), px(x+slot-4), px(y),
					xmlText(fmt.Sprintf("roofline, %s %s %s: %s µs, %s TFLOP/s", r.Suite, r.DType, inputLabel(r),
						num(r.RooflineUS, 2, "", "-"), num(roof, 2, "", "-"))))
			}
			if sp := r.Speedup; sp > 0 && !math.IsInf(sp, 0) {
				color := svgLossColor
				if sp >= 1 {
					color = svgWinColor
				}
				p("<text class=\"speedup\" x=\"%s\" y=\"%s\" font-size=\"9\" text-anchor=\"middle\" fill=\"%s\">%s×</text>\n",
					px(cx), px(topY-4), color, strconv.FormatFloat(sp, 'f', 2, 64))
			}
			ly := bottom + 8
			p("<text class=\"input\" x=\"%s\" y=\"%s\" font-size=\"10\" text-anchor=\"end\" transform=\"rotate(-90 %s %s)\">%s</text>\n",
				px(cx+3.5), px(ly), px(cx+3.5), px(ly), xmlText(in))
			x += slot
		}
		// Suite name under its inputs, with a bracket.
		by := bottom + labelDepth + 6
		p("<path d=\"M%s %sV%sH%sV%s\" fill=\"none\" stroke=\"#888888\" stroke-width=\"1\"/>\n",
			px(gx0+3), px(by-5), px(by), px(x-3), px(by-5))
		p("<text class=\"suite-name\" x=\"%s\" y=\"%s\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\">%s</text>\n",
			px((gx0+x)/2), px(suiteY), xmlText(g.label))
		p("</g>\n")
	}
	// Axis lines last, over the bars' feet.
	p("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"1\"/>\n", px(left), px(bottom), px(right), px(bottom))
	p("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"1\"/>\n", px(left), px(svgPlotTop), px(left), px(bottom))
	p("</svg>\n")
	return bw.Flush()
}
