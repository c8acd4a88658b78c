// The page's inline style sheet: a constant (hashed into the Content-Security-Policy). System fonts only, so the page
// makes no request for them; one column that reads at 320 px and widens to a grid on a desktop; dark mode from
// prefers-color-scheme; no motion at all, and a guard should any be added. State colours always come with words and
// a symbol, chart kinds with a shape. Nothing scrolls sideways: words wrap only where the language breaks lines
// (Korean keeps its words whole), tables stack their rows below 40rem with each value labelled, and the timeline
// shows the latest three months whole on a phone and the year from 40rem up.
export const PAGE_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1a1a1a;--muted:#595959;--line:#d0d0d0;--card:#f6f6f4;--link:#0b57b0;
--ok:#136f2d;--rec:#8a4b00;--no:#2d4a7a;--unk:#5a5a5a;--g:#0b57b0;--b:#8a4b00;--p:#6b3fa0}
@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#ececec;--muted:#b0b0b0;--line:#444;--card:#1e1e1e;--link:#8cb8ff;
--ok:#6fd68c;--rec:#ffb35c;--no:#9dbcf0;--unk:#c4c4c4;--g:#8cb8ff;--b:#ffb35c;--p:#c9a6f5}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP",sans-serif;overflow-wrap:break-word}
:lang(ko){word-break:keep-all}
.ident,code{white-space:nowrap}
code{font-size:.85em}
a{color:var(--link)}
a:focus-visible,summary:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px}
header,main,footer{max-width:68rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem}
h1{font-size:1.3rem;margin:.2rem 0}
h2{font-size:1.15rem;margin:0 0 .5rem}
.tagline,.muted,small{color:var(--muted)}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem .9rem;padding:0;margin:.4rem 0}
nav [aria-current]{font-weight:700;text-decoration:none;color:var(--fg)}
main{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:60rem){main{grid-template-columns:repeat(2,minmax(0,1fr))}#today,#upcoming,#timeline{grid-column:1/-1}}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem}
.state{font-size:clamp(1.6rem,7vw,2.6rem);font-weight:700;line-height:1.2;margin:.2rem 0 .6rem;padding-left:.6rem;border-left:.5rem solid var(--unk)}
.state-confirmed_today{border-color:var(--ok);color:var(--ok)}
.state-recorded_today{border-color:var(--rec);color:var(--rec)}
.state-no_verified_reset{border-color:var(--no);color:var(--no)}
.state-unknown{border-left-style:dashed;color:var(--unk)}
.state-confirmed_today::before{content:"\\2713\\00a0"}
.state-recorded_today::before{content:"\\25CF\\00a0"}
.state-no_verified_reset::before{content:"\\25CB\\00a0"}
.state-unknown::before{content:"?\\00a0"}
#checked-at:not(:empty)::before{content:"\\00b7\\00a0"}
.big{font-size:1.5rem;font-weight:700;margin:.2rem 0}
.big.none{font-size:1.1rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem;margin:.5rem 0}
dt{color:var(--muted)}dd{margin:0}
blockquote{margin:.5rem 0;padding:.3rem .8rem;border-left:3px solid var(--line);white-space:pre-wrap}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
.ok{color:var(--ok)}.bad{color:var(--rec);font-weight:700}
svg{display:block;width:100%;height:auto;max-width:100%}
svg text{fill:var(--fg);font-size:12px}
.tl-recent{display:none}
@media (max-width:40rem){.tl-year{display:none}.tl-recent{display:block}}
svg .axis{stroke:var(--line)}
svg .diagonal{stroke:var(--muted);stroke-dasharray:4 3}
svg.calibration{max-width:18rem;margin:.5rem 0}
svg .k-global_reset{color:var(--g)}svg .k-banked_grant{color:var(--b)}svg .k-policy_change{color:var(--p)}
svg .m{stroke:currentColor;stroke-width:2}
svg .verified{fill:currentColor}svg .archived{fill:var(--card)}
svg .bar-f{fill:var(--g)}svg .bar-c{fill:url(#hatch);stroke:var(--muted)}
svg #hatch path{stroke:var(--muted);stroke-width:2}
@media (max-width:40rem){
table.stack,table.stack tbody,table.stack tr,table.list,table.list tbody,table.list tr{display:block}
table.stack thead,table.list thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr,table.list tr{padding:.35rem 0;border-bottom:1px solid var(--line)}
table.list td{display:inline;border:0;padding:0}
table.list td+td::before{content:" \\00b7 ";color:var(--muted)}
table.stack th,table.stack td{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:.6rem;border:0;padding:.1rem 0}
table.stack [data-label]::before{content:attr(data-label);color:var(--muted);font-weight:400}
}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;list-style:none;padding:0;margin:.5rem 0}
.legend svg{display:inline-block;width:1rem;height:1rem;vertical-align:-.15rem}
ul.plain{padding-left:1.1rem}
footer{padding:1.5rem 1rem;color:var(--muted);font-size:.9rem}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important;scroll-behavior:auto!important}}
`;
