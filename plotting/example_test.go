package plotting_test

import (
	"fmt"
	"image/color"

	"github.com/tracebook/tracebook/plotting"
)

func ExampleTimeline() {
	fig := plotting.Timeline("Two ranks", []plotting.Lane{
		{Name: "rank 0", Bars: []plotting.Bar{
			{Start: 0, End: 100, Level: 0, Label: "main", Color: -1},
			{Start: 10, End: 60, Level: 1, Label: "compute", Color: -1},
			{Start: 60, End: 90, Level: 1, Label: "MPI_Send", Color: -1},
		}},
		{Name: "rank 1", Bars: []plotting.Bar{
			{Start: 0, End: 100, Level: 0, Label: "main", Color: -1},
			{Start: 10, End: 80, Level: 1, Label: "compute", Color: -1},
			{Start: 80, End: 95, Level: 1, Label: "MPI_Recv", Color: -1},
		}},
	}, plotting.WithXLabel("time (ns)"))
	png, err := fig.PNG()
	fmt.Println(fig, len(png) > 0, err)
	// Output: <Figure Two ranks 853x213> true <nil>
}

func ExampleTextGrid() {
	gap := color.Gray{Y: 225}
	fig := plotting.TextGrid("MSA block: functions by colour, gaps grey",
		[]string{"Sequence 1", "Sequence 2"}, nil,
		[][]string{{"main", "solve", "MPI_Send"}, {"main", "—", "MPI_Send"}},
		[][]color.Color{
			{plotting.Categorical(0), plotting.Categorical(1), plotting.Categorical(2)},
			{plotting.Categorical(0), gap, plotting.Categorical(2)},
		})
	png, err := fig.PNG()
	fmt.Println(fig, len(png) > 0, err)
	// Output: <Figure MSA block: functions by colour, gaps grey 337x133> true <nil>
}
