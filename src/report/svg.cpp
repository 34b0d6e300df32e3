#include "report/svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace rb::report {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') {
          out += '?';
        } else {
          out += ch;
        }
    }
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

}  // namespace

std::string render_svg(const Plot& p) {
  const double left = 70, right = 200, top = 34, bottom = 46;
  const double w = p.width, h = p.height;
  const double pw = w - left - right, ph = h - top - bottom;

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
  bool empty = !std::isfinite(xmin);
  if (empty) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
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
  if (p.y_percent) {
    ymin = 0;
    ymax = 1;
  } else {
    // Latencies start at zero so a 5 % change looks like 5 %.
    ymin = std::min(0.0, ymin);
    if (ymax <= ymin) ymax = ymin + 1;
    ymax *= 1.05;
  }
  auto sx = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };
  auto sy = [&](double y) { return top + ph - (y - ymin) / (ymax - ymin) * ph; };

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" font-family=\"system-ui, sans-serif\">\n<title>{2}</title>\n<rect "
      "width=\"{0}\" height=\"{1}\" "
      "fill=\"#ffffff\"/>\n",
      p.width, p.height, xml_escape(p.title));
  s += fmt::format(
      "<text x=\"{}\" y=\"18\" font-size=\"13\" font-weight=\"600\" fill=\"#1d2430\">{}</text>\n",
      left, xml_escape(p.title));
  // A light grid line and a tick label ("end"- or "middle"-anchored).
  auto grid_line = [&](double x1, double y1, double x2, double y2) {
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e7ee\" "
        "stroke-width=\"1\"/>\n",
        x1, y1, x2, y2);
  };
  auto tick_label = [&](double x, double y, const char* anchor, const std::string& text) {
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#4a5566\" "
        "text-anchor=\"{}\">{}</text>\n",
        x, y, anchor, text);
  };
  // Grid and y ticks.
  auto yticks = nice_ticks(ymin, ymax, 5);
  const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
  for (double t : yticks) {
    double y = sy(t);
    grid_line(left, y, left + pw, y);
    tick_label(left - 6, y + 4, "end",
               p.y_percent ? fmt::format("{:g}%", t * 100) : axis_label(t, ystep));
  }
  // x ticks.
  if (!p.x_categories.empty()) {
    // At most about ten labels; a grid line marks every category.
    const size_t every = (p.x_categories.size() + 9) / 10;
    for (size_t i = 0; i < p.x_categories.size(); ++i) {
      double x = sx(static_cast<double>(i));
      grid_line(x, top, x, top + ph);
      tick_label(x, top + ph + 16, "middle",
                 i % every == 0 ? xml_escape(p.x_categories[i]) : std::string());
    }
  } else {
    auto xticks = nice_ticks(xmin, xmax, 6);
    const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
    for (double t : xticks) {
      double x = sx(t);
      grid_line(x, top, x, top + ph);
      tick_label(x, top + ph + 16, "middle", axis_label(t, xstep));
    }
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#9aa4b2\" "
      "stroke-width=\"1\"/>\n",
      left, top, pw, ph);
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" "
      "text-anchor=\"middle\">{}</text>\n",
      left + pw / 2, h - 8, xml_escape(p.x_label));
  s += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
      top + ph / 2, top + ph / 2, xml_escape(p.y_label));
  if (empty) {
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"#2b3442\" "
        "text-anchor=\"middle\">no data</text>\n",
        left + pw / 2, top + ph / 2);
  }

  for (size_t i = 0; i < p.lines.size(); ++i) {
    const PlotLine& l = p.lines[i];
    const char* colour = kColours[i % std::size(kColours)];
    std::string pts;
    double prev_y = 0;
    bool first = true;
    for (const auto& [x, y] : l.points) {
      if (l.step && !first) pts += fmt::format("{:.1f},{:.1f} ", sx(x), sy(prev_y));
      pts += fmt::format("{:.1f},{:.1f} ", sx(x), sy(y));
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
            sx(x), sy(y), colour, xml_escape(l.label), fmt::format("{:g}", y));
      }
    }
    double ly = top + 8 + 16.0 * static_cast<double>(i);
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"2\"{}/>\n",
        left + pw + 10, ly, left + pw + 28, ly, colour,
        l.dashed ? " stroke-dasharray=\"5 3\"" : "");
    std::string label = l.label.size() > 28 ? l.label.substr(0, 27) + "…" : l.label;
    s +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#2b3442\">{}</text>\n",
                    left + pw + 32, ly + 4, xml_escape(label));
  }
  s += "</svg>\n";
  return s;
}

}  // namespace rb::report
