// Draws the page's charts with uPlot from the JSON in #chart-data (ChartData.java), and keeps in
// #chart-status what it drew: per chart its id, lines, points, y scale (log or linear, min, max)
// and draws, and the script errors errors.js caught. The browser test reads that status.
(function () {
  "use strict";
  var DASHES = [[], [8, 5], [2, 4]];
  var NINES = ["p0", "p90", "p99", "p99.9", "p99.99", "p99.999"];
  var HEIGHT = 340;
  var XLEGEND = { time: "window end (UTC)", nines: "percentile" };
  var container = document.getElementById("charts");
  var plots = []; // {chart, plot, log, draws}
  window.tpotCharts = plots; // for a look from the browser's console
  var following = false;

  // An x array from ChartData.Xs: its values, or a start and the steps between values.
  function xValues(xs) {
    if (xs.v) {
      return xs.v;
    }
    var out = new Array(xs.steps.length + 1);
    var t = xs.start;
    out[0] = t;
    for (var i = 0; i < xs.steps.length; i++) {
      t = Math.round((t + xs.steps[i]) * 1000) / 1000;
      out[i + 1] = t;
    }
    return out;
  }

  function utc(seconds) {
    return new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.000Z$|Z$/, " UTC");
  }

  // A nines position (1 = p90, 2 = p99, ...) as its percentile; 5.5 and beyond is the maximum.
  function percentile(x) {
    return x >= 5.5 ? "max" : "p" + +(100 * (1 - Math.pow(10, -x))).toFixed(4);
  }

  // Time ticks in UTC, 24 h: the date on the first tick and where the day changes.
  function timeTicks(u, splits) {
    var seconds = u.scales.x.max - u.scales.x.min < 600;
    var day = null;
    return splits.map(function (s) {
      var iso = new Date(s * 1000).toISOString();
      var time = iso.substring(11, seconds ? 19 : 16);
      var date = iso.substring(0, 10);
      var label = date === day ? time : time + "\n" + date;
      day = date;
      return label;
    });
  }

  function xAxis(c) {
    var axis = { label: c.xLabel };
    if (c.x === "time") {
      axis.values = timeTicks;
    }
    if (c.x === "nines") {
      axis.splits = function () {
        return [0, 1, 2, 3, 4, 5];
      };
      axis.values = function (u, splits) {
        return splits.map(function (s) {
          return NINES[s];
        });
      };
    }
    return axis;
  }

  function xLegend(c) {
    if (c.x === "time") {
      return function (u, v) {
        return v == null ? "–" : utc(v);
      };
    }
    if (c.x === "nines") {
      return function (u, v) {
        return v == null ? "–" : percentile(v);
      };
    }
    return function (u, v) {
      return v == null ? "–" : String(v);
    };
  }

  // Log: base 10. Linear: from 0 (or a little below the lowest value, when one is negative) to a
  // little above the largest value; 0 to 1 when all are 0.
  function yScale(log) {
    if (log) {
      return { distr: 3, log: 10 };
    }
    return {
      range: function (u, min, max) {
        return [min < 0 ? min * 1.08 : 0, max > 0 ? max * 1.08 : 1];
      },
    };
  }

  function entryOf(u) {
    for (var i = 0; i < plots.length; i++) {
      if (plots[i].plot === u) {
        return plots[i];
      }
    }
    return null;
  }

  function drawn(c) {
    return function (u) {
      if (c.marker != null && c.marker <= u.scales.y.max && c.marker >= u.scales.y.min) {
        var y = u.valToPos(c.marker, "y", true);
        var ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = "#888";
        ctx.fillStyle = "#666";
        ctx.lineWidth = uPlot.pxRatio;
        ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
        ctx.beginPath();
        ctx.moveTo(u.bbox.left, y);
        ctx.lineTo(u.bbox.left + u.bbox.width, y);
        ctx.stroke();
        ctx.font = 12 * uPlot.pxRatio + "px sans-serif";
        ctx.textAlign = "left";
        ctx.textBaseline = "bottom";
        ctx.fillText(c.markerLabel, u.bbox.left + 6 * uPlot.pxRatio, y - 4 * uPlot.pxRatio);
        ctx.restore();
      }
      var entry = entryOf(u);
      if (entry) {
        entry.draws++;
        writeStatus();
      }
    };
  }

  // A zoom of one time chart's x range (drag, or double-click to reset) zooms every time chart.
  function followX(u, key) {
    var entry = entryOf(u);
    if (key !== "x" || following || !entry || entry.chart.x !== "time") {
      return;
    }
    following = true;
    plots.forEach(function (other) {
      if (other.plot !== u && other.chart.x === "time") {
        other.plot.setScale("x", { min: u.scales.x.min, max: u.scales.x.max });
      }
    });
    following = false;
  }

  function options(c, log, width) {
    var time = c.x === "time";
    var opts = {
      width: width,
      height: HEIGHT,
      scales: { x: { time: time }, y: yScale(log) },
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
      axes: [xAxis(c), { label: c.yLabel + (log ? ", log scale" : ""), size: 64 }],
      series: [{ label: XLEGEND[c.x] || c.xLabel, value: xLegend(c) }].concat(
        c.lines.map(function (l) {
          return {
            label: l.label,
            stroke: l.color,
            dash: DASHES[l.dash],
            width: 1.5,
            spanGaps: !time,
            value: function (u, v) {
              return v == null ? "–" : v + " " + c.unit;
            },
          };
        })
      ),
      hooks: { draw: [drawn(c)], setScale: [followX] },
    };
    if (time) {
      opts.cursor.sync = { key: "window-end" };
      opts.tzDate = function (ts) {
        return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC");
      };
    }
    return opts;
  }

  // A log axis cannot show 0 or less: those values become gaps there.
  function lineData(c, x, log) {
    return [x].concat(
      c.lines.map(function (l) {
        return log
          ? l.v.map(function (v) {
              return v != null && v > 0 ? v : null;
            })
          : l.v;
      })
    );
  }

  function width() {
    return Math.max(600, container.clientWidth - 10);
  }

  function addChart(c, x) {
    var box = document.createElement("div");
    box.className = "chart";
    box.id = "chart-" + c.id;
    var title = document.createElement("h3");
    title.textContent = c.title;
    box.appendChild(title);
    var entry = { chart: c, plot: null, log: c.log, draws: 0 };
    if (c.unit === "ms") {
      var label = document.createElement("label");
      var toggle = document.createElement("input");
      toggle.type = "checkbox";
      toggle.checked = c.log;
      toggle.addEventListener("change", function () {
        var range = { min: entry.plot.scales.x.min, max: entry.plot.scales.x.max };
        entry.plot.destroy();
        entry.log = toggle.checked;
        entry.draws = 0;
        entry.plot = new uPlot(options(c, entry.log, width()), lineData(c, x, entry.log), area);
        entry.plot.setScale("x", range);
      });
      label.appendChild(toggle);
      label.appendChild(document.createTextNode(" log scale"));
      box.appendChild(label);
    }
    var area = document.createElement("div");
    box.appendChild(area);
    container.appendChild(box);
    plots.push(entry);
    entry.plot = new uPlot(options(c, entry.log, width()), lineData(c, x, entry.log), area);
  }

  function writeStatus() {
    document.getElementById("chart-status").textContent = JSON.stringify({
      charts: plots
        .filter(function (p) {
          return p.plot;
        })
        .map(function (p) {
          var y = p.plot.scales.y;
          return {
            id: p.chart.id,
            series: p.plot.series.length - 1,
            points: p.plot.data[0].length,
            scale: y.distr === 3 ? "log" : "linear",
            yMin: y.min,
            yMax: y.max,
            draws: p.draws,
          };
        }),
      errors: window.chartErrors || [],
    });
  }

  try {
    var data = JSON.parse(document.getElementById("chart-data").textContent);
    var xs = data.xs.map(xValues);
    data.charts.forEach(function (c) {
      addChart(c, xs[c.xs]);
    });
    window.addEventListener("resize", function () {
      plots.forEach(function (p) {
        p.plot.setSize({ width: width(), height: HEIGHT });
      });
    });
  } catch (e) {
    (window.chartErrors = window.chartErrors || []).push(String((e && e.stack) || e));
  }
  writeStatus();
})();
