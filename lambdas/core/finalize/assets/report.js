(() => {
  var dataEl = document.getElementById('report-data');
  if (!dataEl) return;
  var data = JSON.parse(dataEl.textContent || '{}');
  var RANK = { none: 0, low: 1, medium: 2, high: 3, critical: 4 };
  var byId = (id) => document.getElementById(id);
  var riskSel = byId('f-risk'),
    catSel = byId('f-cat'),
    q = byId('f-q'),
    showAll = byId('f-all');
  var status = byId('f-status'),
    reset = byId('f-reset');
  var catNames = {};
  (data.categories || []).forEach((c) => {
    catNames[c.id] = c.name;
  });
  var clauses = (data.clauses || []).map((c) => {
    var el = byId(c.anchor);
    var items = el ? Array.prototype.slice.call(el.querySelectorAll('li.finding')) : [];
    return {
      meta: c,
      el: el,
      items: items,
      marks: el ? Array.prototype.slice.call(el.querySelectorAll('mark.hl')) : [],
      text: el
        ? `${el.querySelector('.chead').textContent} ${el.querySelector('.ctext').textContent}`.toLowerCase()
        : '',
      itemText: items.map((li) => li.textContent.toLowerCase()),
    };
  });
  var total = clauses.reduce((n, c) => n + c.items.length, 0);

  function apply() {
    var min = riskSel?.value ? RANK[riskSel.value] : -1;
    var cat = catSel ? catSel.value : '';
    var needle = q ? q.value.trim().toLowerCase() : '';
    var all = !!showAll?.checked;
    var shownF = 0,
      shownC = 0;
    clauses.forEach((c) => {
      if (!c.el) return;
      var risk = c.meta.risk;
      var rank = risk == null ? -1 : RANK[risk];
      var riskOk = min < 0 || rank >= min;
      var clauseHit = needle === '' || c.text.indexOf(needle) >= 0;
      var visible = {};
      var n = 0;
      c.items.forEach((li, j) => {
        var f = c.meta.findings[j] || {};
        var ok =
          riskOk && (cat === '' || f.category === cat) && (clauseHit || c.itemText[j].indexOf(needle) >= 0);
        li.hidden = !ok;
        if (ok) {
          visible[j] = true;
          n++;
        }
      });
      c.marks.forEach((m) => {
        var ids = (m.getAttribute('data-f') || '').split(' ');
        var on = ids.some((id) => visible[id]);
        m.classList.toggle('dim', !on);
      });
      var show = n > 0 || (all && riskOk && cat === '' && clauseHit);
      c.el.hidden = !show;
      if (show) shownC++;
      shownF += n;
    });
    if (status) {
      let msg = `Showing ${shownF} of ${total} findings in ${shownC} clause${shownC === 1 ? '' : 's'}`;
      if (cat) msg += ` · category: ${catNames[cat] || cat}`;
      if (shownC === 0 && !all) msg += ' · tick "Show clauses without findings" to search every clause';
      status.textContent = `${msg}.`;
    }
  }

  function jump(anchor) {
    var el = byId(anchor);
    if (!el) return;
    el.hidden = false;
    Array.prototype.forEach.call(el.querySelectorAll('li.finding'), (li) => {
      li.hidden = false;
    });
    el.scrollIntoView({ block: 'start' });
    el.classList.add('flash');
    setTimeout(() => {
      el.classList.remove('flash');
    }, 1600);
    try {
      el.focus({ preventScroll: true });
    } catch (_e) {
      el.focus();
    }
    try {
      history.replaceState(null, '', `#${anchor}`);
    } catch (_e) {
      /* file: URLs may refuse */
    }
    var meta = clauses.filter((c) => c.meta.anchor === anchor)[0];
    if (status && meta) status.textContent = `Showing clause ${meta.meta.label}.`;
  }

  [riskSel, catSel, showAll].forEach((el) => {
    if (el) el.addEventListener('change', apply);
  });
  if (q) q.addEventListener('input', apply);
  if (reset)
    reset.addEventListener('click', () => {
      if (riskSel) riskSel.value = '';
      if (catSel) catSel.value = '';
      if (q) q.value = '';
      if (showAll) showAll.checked = total === 0;
      apply();
    });

  var heat = document.querySelector('table.heat tbody');
  if (heat)
    heat.addEventListener('click', (ev) => {
      var row = ev.target?.closest ? ev.target.closest('tr[data-anchor]') : null;
      if (!row) return;
      ev.preventDefault();
      jump(row.getAttribute('data-anchor'));
    });

  function linkFindings(ev, on) {
    var t = ev.target;
    if (!t?.closest) return;
    var li = t.closest('li.finding');
    var art = t.closest('article.clause');
    if (!li || !art) return;
    var j = li.getAttribute('data-fi');
    Array.prototype.forEach.call(art.querySelectorAll('mark.hl'), (m) => {
      var ids = (m.getAttribute('data-f') || '').split(' ');
      m.classList.toggle('active', on && ids.indexOf(j) >= 0);
    });
  }
  document.addEventListener('mouseover', (ev) => {
    linkFindings(ev, true);
  });
  document.addEventListener('mouseout', (ev) => {
    linkFindings(ev, false);
  });
  document.addEventListener('focusin', (ev) => {
    linkFindings(ev, true);
  });
  document.addEventListener('focusout', (ev) => {
    linkFindings(ev, false);
  });
  document.addEventListener('click', (ev) => {
    var t = ev.target;
    var m = t?.closest ? t.closest('mark.hl') : null;
    if (!m) return;
    var art = m.closest('article.clause');
    var ids = (m.getAttribute('data-f') || '').split(' ');
    var first = null;
    Array.prototype.forEach.call(art.querySelectorAll('li.finding'), (li) => {
      var on = ids.indexOf(li.getAttribute('data-fi')) >= 0;
      li.classList.toggle('active', on);
      if (on && !first && !li.hidden) first = li;
    });
    if (first) first.scrollIntoView({ block: 'nearest' });
  });

  var closed = [];
  window.addEventListener('beforeprint', () => {
    closed = Array.prototype.filter.call(document.querySelectorAll('details'), (d) => !d.open);
    closed.forEach((d) => {
      d.open = true;
    });
  });
  window.addEventListener('afterprint', () => {
    closed.forEach((d) => {
      d.open = false;
    });
    closed = [];
  });

  apply();
  if (location.hash && location.hash.indexOf('#clause-') === 0) jump(location.hash.slice(1));
})();
