#pragma once
// Inline SVG line plots for the HTML report: no script, no font or image
// from elsewhere, so the report opens offline and prints as it shows.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rb::report {

struct PlotLine {
  std::string label;
  std::vector<std::pair<double, double>> points;  // x ascending
  bool step = false;                              // draw as a step function (a CDF)
  bool dashed = false;   // approximate (e.g. a CDF from statistics, not from samples)
  bool markers = false;  // draw a dot at each point (trends)
};

struct Plot {
  std::string title;
  std::string x_label, y_label;
  std::vector<PlotLine> lines;
  // Category labels for x = 0, 1, 2, ... (trends over runs); empty: numeric x axis.
  std::vector<std::string> x_categories;
  bool y_percent = false;  // y in [0, 1] shown as percent
  // y on a log10 scale from 1 (counts, as cyclictest's users read a
  // histogram); a y of 0 is drawn on the bottom edge.
  bool y_log = false;
  int width = 720, height = 320;
};

// The plot as one <svg> element (with a <title> for screen readers).
std::string render_svg(const Plot& plot);

// At most `max_points` (value, cumulative fraction) points of the empirical
// CDF of `sorted` (ascending), starting at (smallest, 0) and ending at
// (largest, 1); thinned evenly in rank when there are more distinct values.
std::vector<std::pair<double, double>> cdf_points(const std::vector<uint64_t>& sorted,
                                                  size_t max_points);

// A tick label with as many decimals as the tick step needs ("1000004",
// "2.5", "0.25").
std::string axis_label(double v, double step);

// &, <, >, " and ' escaped for XML/HTML text and attributes.
std::string xml_escape(const std::string& s);

}  // namespace rb::report
