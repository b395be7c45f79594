// theme.js: applies the saved theme before first paint (no flash). A classic script of its own,
// not inline in index.html: the Content-Security-Policy tracetapd sends allows no inline script.
try { const t = localStorage.getItem('tracetap.theme'); if (t) document.documentElement.dataset.theme = t; } catch (e) { /* storage off */ }
