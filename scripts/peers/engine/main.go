package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/notesbench/notesbench/store"
)

func main() {
	fmt.Println("sqlite_version", store.EngineVersion())
	driver := store.Driver
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "modernc.org/sqlite" {
				driver = strings.Replace(driver, m.Path, m.Path+" "+m.Version, 1)
			}
		}
	}
	fmt.Println("driver", driver)
}
