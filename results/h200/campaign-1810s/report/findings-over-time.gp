# findings-over-time.gp — made by dotfuzz report; remake with: gnuplot findings-over-time.gp (in this
# directory). One terminal pass per format: PNG, then SVG.
set title 'Findings over time'
set grid
set key outside right top
set xlabel 'elapsed time (s)'
set ylabel 'findings (cumulative)'
set ytics nomirror
set y2tics
set y2label 'cases done'
set yrange [0:*]
set y2range [0:*]
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced
} else {
    set terminal png size 1000,600 noenhanced
}
set output 'findings-over-time.png'
plot 'findings-over-time.dat' index 0 using 1:2 with steps lw 2 title 'all findings', \
     'findings-over-time.dat' index 0 using 1:3 with steps lw 1 title 'bug (oracle)', \
     'findings-over-time.dat' index 0 using 1:5 with steps lw 1 title 'hang', \
     'findings-over-time.dat' index 1 using 1:2 axes x1y2 with lines dt 2 title 'cases done (right axis)'
set terminal svg size 1000,600 noenhanced
set output 'findings-over-time.svg'
replot
unset output
