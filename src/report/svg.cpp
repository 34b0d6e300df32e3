#include "report/svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace rb::report {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  constexpr std::string_view kSpecial = "&<>\"'";
  constexpr const char* kEntity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
  for (char ch : s) {
    if (size_t i = kSpecial.find(ch); i != std::string_view::npos)
      out += kEntity[i];
    else if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
      out += '?';
    else
      out += ch;
  }
  return out;
}

std::string axis_label(double v, double step) {
  if (step >= 1 || step <= 0) return fmt::format("{:.0f}", v);
  int decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", v, std::min(decimals, 9));
}

std::vector<std::pair<double, double>> cdf_points(const std::vector<uint64_t>& sorted,
                                                  size_t max_points) {
  std::vector<std::pair<double, double>> out;
  const size_t n = sorted.size();
  if (n == 0 || max_points < 3) return out;
  // A CDF only changes at a distinct value: one point per distinct value
  // (its last rank), thinned evenly when there are too many.
  std::vector<size_t> last_of_value;
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 == n || sorted[i + 1] != sorted[i]) last_of_value.push_back(i);
  }
  // The step up at the smallest sample starts from 0.
  out.emplace_back(static_cast<double>(sorted[0]), 0.0);
  const size_t room = max_points - 1;
  const size_t m = last_of_value.size();
  size_t previous = m;  // none yet
  for (size_t k = 0; k < std::min(room, m); ++k) {
    size_t j = m <= room ? k : k * (m - 1) / (room - 1);
    if (j == previous) continue;
    previous = j;
    size_t i = last_of_value[j];
    out.emplace_back(static_cast<double>(sorted[i]),
                     static_cast<double>(i + 1) / static_cast<double>(n));
  }
  return out;
}

namespace {

// Tableau 10: distinguishable, readable on white, kind to colour-blind readers.
const char* const kColours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// Ticks at 1, 2 or 5 times a power of ten, about `want` of them over [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int want) {
  std::vector<double> out;
  if (!(hi > lo)) {
    out.push_back(lo);
    return out;
  }
  double raw = (hi - lo) / want;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

// The plot area in pixels and the data range it shows.
struct Frame {
  double left = 70, right = 200, top = 34, bottom = 46;
  double pw = 0, ph = 0;
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  bool empty = false;
  bool log = false;  // ymin, ymax are log10 of the range then
  double sx(double x) const { return left + (x - xmin) / (xmax - xmin) * pw; }
  double sy(double y) const {
    if (log) y = y > 0 ? std::log10(y) : ymin;
    y = std::clamp(y, ymin, ymax);
    return top + ph - (y - ymin) / (ymax - ymin) * ph;
  }
};

Frame frame_of(const Plot& p) {
  Frame f;
  f.pw = p.width - f.left - f.right;
  f.ph = p.height - f.top - f.bottom;
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  double ymin = std::numeric_limits<double>::infinity(), ymax = -ymin;
  for (const auto& l : p.lines) {
    for (const auto& [x, y] : l.points) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  f.empty = !std::isfinite(xmin);
  if (f.empty) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (!p.x_categories.empty()) {
    xmin = -0.5;
    xmax = static_cast<double>(p.x_categories.size()) - 0.5;
  } else if (xmax == xmin) {
    xmin -= 1;
    xmax += 1;
  } else {
    double pad = (xmax - xmin) * 0.03;
    xmin -= pad;
    xmax += pad;
  }
  if (p.y_log) {
    // From 10^0 = 1 to the next power of ten above the largest count.
    f.log = true;
    ymin = 0;
    ymax = std::max(1.0, std::ceil(std::log10(std::max(ymax, 1.0)) + 1e-9));
  } else if (p.y_percent) {
    ymin = 0;
    ymax = 1;
  } else {
    // Latencies start at zero so a 5 % change looks like 5 %.
    ymin = std::min(0.0, ymin);
    if (ymax <= ymin) ymax = ymin + 1;
    ymax *= 1.05;
  }
  f.xmin = xmin, f.xmax = xmax, f.ymin = ymin, f.ymax = ymax;
  return f;
}

// A light grid line.
void grid_line(std::string& s, double x1, double y1, double x2, double y2) {
  s += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e7ee\" "
      "stroke-width=\"1\"/>\n",
      x1, y1, x2, y2);
}

// A tick label ("end"- or "middle"-anchored).
void tick_label(std::string& s, double x, double y, const char* anchor, const std::string& text) {
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#4a5566\" "
      "text-anchor=\"{}\">{}</text>\n",
      x, y, anchor, text);
}

// The grid, the ticks, the frame and the axis labels.
void axes(std::string& s, const Plot& p, const Frame& f) {
  if (f.log) {
    // A grid line per power of ten, labelled 1, 10, 100, 1e3 ...
    for (double e = f.ymin; e <= f.ymax + 1e-9; e += 1) {
      const double v = std::pow(10.0, e);
      const double y = f.sy(v);
      grid_line(s, f.left, y, f.left + f.pw, y);
      tick_label(s, f.left - 6, y + 4, "end",
                 e < 3 ? fmt::format("{:.0f}", v) : fmt::format("1e{:.0f}", e));
    }
  }
  auto yticks = f.log ? std::vector<double>{} : nice_ticks(f.ymin, f.ymax, 5);
  const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
  for (double t : yticks) {
    double y = f.sy(t);
    grid_line(s, f.left, y, f.left + f.pw, y);
    tick_label(s, f.left - 6, y + 4, "end",
               p.y_percent ? fmt::format("{:g}%", t * 100) : axis_label(t, ystep));
  }
  if (!p.x_categories.empty()) {
    // At most about ten labels; a grid line marks every category.
    const size_t every = (p.x_categories.size() + 9) / 10;
    for (size_t i = 0; i < p.x_categories.size(); ++i) {
      double x = f.sx(static_cast<double>(i));
      grid_line(s, x, f.top, x, f.top + f.ph);
      tick_label(s, x, f.top + f.ph + 16, "middle",
                 i % every == 0 ? xml_escape(p.x_categories[i]) : std::string());
    }
  } else {
    auto xticks = nice_ticks(f.xmin, f.xmax, 6);
    const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
    for (double t : xticks) {
      double x = f.sx(t);
      grid_line(s, x, f.top, x, f.top + f.ph);
      tick_label(s, x, f.top + f.ph + 16, "middle", axis_label(t, xstep));
    }
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#9aa4b2\" "
      "stroke-width=\"1\"/>\n",
      f.left, f.top, f.pw, f.ph);
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" "
      "text-anchor=\"middle\">{}</text>\n",
      f.left + f.pw / 2, static_cast<double>(p.height) - 8, xml_escape(p.x_label));
  s += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
      f.top + f.ph / 2, f.top + f.ph / 2, xml_escape(p.y_label));
  if (f.empty) {
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" "
        "text-anchor=\"middle\">no data</text>\n",
        f.left + f.pw / 2, f.top + f.ph / 2);
  }
}

// Line i: its polyline, its markers and its legend entry.
void plot_line(std::string& s, const PlotLine& l, size_t i, const Frame& f) {
  const char* colour = kColours[i % std::size(kColours)];
  std::string pts;
  double prev_y = 0;
  bool first = true;
  for (const auto& [x, y] : l.points) {
    if (l.step && !first) pts += fmt::format("{:.1f},{:.1f} ", f.sx(x), f.sy(prev_y));
    pts += fmt::format("{:.1f},{:.1f} ", f.sx(x), f.sy(y));
    prev_y = y;
    first = false;
  }
  if (!pts.empty()) pts.pop_back();
  s += fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"1.8\"{}><title>{}</title></polyline>\n",
      pts, colour, l.dashed ? " stroke-dasharray=\"5 3\"" : "", xml_escape(l.label));
  if (l.markers) {
    for (const auto& [x, y] : l.points) {
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: "
          "{}</title></circle>\n",
          f.sx(x), f.sy(y), colour, xml_escape(l.label), fmt::format("{:g}", y));
    }
  }
  double ly = f.top + 8 + 16.0 * static_cast<double>(i);
  s += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
      "stroke-width=\"2\"{}/>\n",
      f.left + f.pw + 10, ly, f.left + f.pw + 28, ly, colour,
      l.dashed ? " stroke-dasharray=\"5 3\"" : "");
  std::string label = l.label.size() > 28 ? l.label.substr(0, 27) + "…" : l.label;
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#2b3442\">{}</text>\n",
                   f.left + f.pw + 32, ly + 4, xml_escape(label));
}

}  // namespace

std::string render_svg(const Plot& p) {
  const Frame f = frame_of(p);
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" font-family=\"system-ui, sans-serif\">\n<title>{2}</title>\n<rect "
      "width=\"{0}\" height=\"{1}\" "
      "fill=\"#ffffff\"/>\n",
      p.width, p.height, xml_escape(p.title));
  s += fmt::format(
      "<text x=\"{}\" y=\"18\" font-size=\"13\" font-weight=\"600\" fill=\"#1d2430\">{}</text>\n",
      f.left, xml_escape(p.title));
  axes(s, p, f);
  for (size_t i = 0; i < p.lines.size(); ++i) plot_line(s, p.lines[i], i, f);
  s += "</svg>\n";
  return s;
}

}  // namespace rb::report
