#include "report/tolerance.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include "matrix/load.h"
#include "report/snapshot.h"
// GCC 12 warns about yaml-cpp's own node iterators (a known false positive).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace rb::report {

double Tolerance::allowed(double ref) const {
  return std::max(abs, pct / 100.0 * std::fabs(ref));
}

std::string Tolerance::describe() const {
  if (off) return "off";
  return fmt::format("abs {:g}, {:g}%", abs, pct);
}

Tolerances Tolerances::defaults() {
  // Emulated runs repeat to the instruction; on hardware the medians move by
  // a few cycles between cold starts (seed 000), tails and maxima much more.
  Tolerances t;
  for (const auto& st : model::statistics())
    t.default_[std::string(st.name)] = Partial{st.abs, st.pct, false};
  return t;
}

void Tolerances::apply(Tolerance& t, const Partial& p) {
  if (p.abs) t.abs = *p.abs;
  if (p.pct) t.pct = *p.pct;
  if (p.off) t.off = *p.off;
}

Tolerance Tolerances::lookup(const std::string& test, const std::string& series_key,
                             const std::string& metric) const {
  Tolerance t;
  if (auto it = default_.find(metric); it != default_.end()) apply(t, it->second);
  for (const std::string& level : {test, series_key}) {
    auto o = overrides_.find(level);
    if (o == overrides_.end()) continue;
    if (auto it = o->second.find(metric); it != o->second.end()) apply(t, it->second);
  }
  return t;
}

namespace {

struct Problems {
  std::string file;
  std::vector<std::string> list;
  void add(const YAML::Node& at, const std::string& message) {
    YAML::Mark m = at.Mark();
    if (m.line >= 0) {
      list.push_back(fmt::format("{}:{}:{}: {}", file, m.line + 1, m.column + 1, message));
    } else {
      list.push_back(fmt::format("{}: {}", file, message));
    }
  }
};

std::string metric_names() {
  std::vector<std::string> names;
  for (const auto& m : metric_defs()) names.push_back(m.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

bool is_off(const YAML::Node& n) {
  if (!n.IsScalar()) return false;
  std::string s = n.Scalar();
  return s == "off" || s == "false" || s == "no";
}

std::optional<double> number(const YAML::Node& n, const std::string& what, Problems& p) {
  if (!n.IsScalar()) {
    p.add(n, fmt::format("{} must be a number", what));
    return std::nullopt;
  }
  std::string s = n.Scalar();
  if (!s.empty() && s.back() == '%') s.pop_back();
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(v) || v < 0) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    p.add(n, fmt::format("{} must be a non-negative number, not '{}'", what, n.Scalar()));
    return std::nullopt;
  }
}

// metric -> {abs, pct, off} | off
void parse_metrics(const YAML::Node& node, const std::string& where, Problems& p,
                   std::map<std::string, Tolerances::Partial>& out) {
  if (!node.IsMap()) {
    p.add(node,
          fmt::format("{} must map statistic names ({}) to tolerances", where, metric_names()));
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string metric = it->first.Scalar();
    if (!find_metric(metric)) {
      p.add(it->first, fmt::format("unknown statistic '{}' in {} (allowed: {})", metric, where,
                                   metric_names()));
      continue;
    }
    const YAML::Node v = it->second;  // a copy: it-> is a temporary proxy
    std::string what = fmt::format("{}.{}", where, metric);
    Tolerances::Partial part;
    if (is_off(v)) {
      part.off = true;
    } else if (v.IsMap()) {
      for (auto f = v.begin(); f != v.end(); ++f) {
        std::string key = f->first.Scalar();
        if (key == "abs") {
          part.abs = number(f->second, what + ".abs", p);
        } else if (key == "pct") {
          part.pct = number(f->second, what + ".pct", p);
        } else if (key == "off") {
          std::string s = f->second.IsScalar() ? f->second.Scalar() : "";
          if (s == "true" || s == "yes" || s == "on") {
            part.off = true;
          } else if (s == "false" || s == "no") {
            part.off = false;
          } else {
            p.add(f->second, fmt::format("{}.off must be true or false", what));
          }
        } else {
          p.add(f->first,
                fmt::format("unknown key '{}' in {} (allowed: abs, pct, off)", key, what));
        }
      }
      // Giving values for a metric switched off below switches it back on.
      if (!part.off) part.off = false;
    } else {
      p.add(v, fmt::format("{} must be {{abs: N, pct: N}} or off", what));
    }
    out[metric] = part;
  }
}

// The fields `part` gives over those of `base`.
void merge(Tolerances::Partial& base, const Tolerances::Partial& part) {
  if (part.abs) base.abs = part.abs;
  if (part.pct) base.pct = part.pct;
  if (part.off) base.off = part.off;
}

}  // namespace

Status Tolerances::merge_yaml(const YAML::Node& node, const std::string& file) {
  Problems p{file, {}};
  // Merged into copies: on error these tolerances stay as they were.
  auto defaults = default_;
  auto overrides = overrides_;
  if (!node.IsMap()) {
    p.add(node, "tolerances must be a mapping with 'default' and/or 'tests'");
  } else {
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.Scalar();
      if (key == "default") {
        std::map<std::string, Partial> d;
        parse_metrics(it->second, "tolerances.default", p, d);
        for (auto& [m, part] : d) merge(defaults[m], part);
      } else if (key == "tests") {
        if (!it->second.IsMap()) {
          p.add(it->second, "tolerances.tests must map test or series names to statistics");
          continue;
        }
        for (auto t = it->second.begin(); t != it->second.end(); ++t) {
          std::string name = t->first.Scalar();
          std::map<std::string, Partial> d;
          parse_metrics(t->second, fmt::format("tolerances.tests.{}", name), p, d);
          for (auto& [m, part] : d) merge(overrides[name][m], part);
        }
      } else {
        p.add(it->first,
              fmt::format("unknown key '{}' in tolerances (allowed: default, tests)", key));
      }
    }
  }
  if (!p.list.empty()) return Error{fmt::format("{}", fmt::join(p.list, "\n"))};
  default_ = std::move(defaults);
  overrides_ = std::move(overrides);
  origin_ = fmt::format("{} (tolerances:)", file);
  return {};
}

namespace {

Result<YAML::Node> load_yaml(const std::filesystem::path& file) {
  try {
    return YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    return Error{fmt::format("cannot read {}", file.string())};
  } catch (const YAML::Exception& e) {
    return Error{
        fmt::format("{}:{}:{}: {}", file.string(), e.mark.line + 1, e.mark.column + 1, e.msg)};
  }
}

}  // namespace

Result<Tolerances> tolerances_from_matrix(const std::filesystem::path& matrix_yaml) {
  auto root = load_yaml(matrix_yaml);
  if (!root.ok()) return root.error();
  Tolerances t = Tolerances::defaults();
  if (root->IsMap() && (*root)["tolerances"].IsDefined()) {
    if (auto s = t.merge_yaml((*root)["tolerances"], matrix_yaml.string()); !s.ok())
      return s.error();
  }
  return t;
}

Result<Tolerances> load_tolerances_file(const std::filesystem::path& file) {
  auto root = load_yaml(file);
  if (!root.ok()) return root.error();
  Tolerances t = Tolerances::defaults();
  YAML::Node node = *root;
  if (node.IsMap() && node["tolerances"].IsDefined()) node = node["tolerances"];
  if (auto s = t.merge_yaml(node, file.string()); !s.ok()) return s.error();
  return t;
}

}  // namespace rb::report
