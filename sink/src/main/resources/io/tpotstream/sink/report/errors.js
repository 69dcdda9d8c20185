// Before any other script: every uncaught error is kept for #chart-status (charts.js writes it there).
window.chartErrors = [];
window.onerror = function (message, source, line) {
  window.chartErrors.push(String(message) + (line ? " (line " + line + ")" : ""));
  var status = document.getElementById("chart-status");
  if (status) {
    status.textContent = JSON.stringify({ charts: [], errors: window.chartErrors });
  }
};
