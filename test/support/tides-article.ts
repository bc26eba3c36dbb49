/** The highlight tests' kept page: one sentence twice, so only the prefix and suffix can say which is meant. */
export const TIDES_ARTICLE = `<!doctype html><html lang="en"><head><title>Tides of the North Sea</title></head><body>
<nav><a href="/">Home</a> · <a href="/news">News</a></nav>
<article><h1>Tides of the North Sea</h1><p class="byline">By Ada Wave</p>
<p>Twice a day the North Sea breathes in and out along the Frisian coast. The mudflats of the Wadden Sea lie bare for hours, and walkers cross to the islands on foot, guided by people who know the channels.</p>
<p>The tide came in. Fishermen in Harlingen still time their departures by it, as their grandparents did, and the harbour master posts the tables on the door of his office every Monday morning.</p>
<p>Scientists measure the range with gauges that report every minute. The records go back to 1843 in Den Helder, one of the longest series in Europe, and they show the mean high water rising slowly.</p>
<p>The tide came in. By evening the flats were gone again, and the seals that had rested on the sandbanks slid back into the water, leaving only their tracks for the next low tide to show.</p>
</article><footer>Copyright the Coast Gazette</footer></body></html>`;
