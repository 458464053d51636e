# Convenience targets; scripts/ holds the real recipes (README.md).
GO_TAGS_DESKTOP := desktop,production,webkit2_41
# The build stamps of Settings → About (scripts/lib.sh meith_ldflags).
STAMP = $(shell bash -c 'source scripts/lib.sh && meith_ldflags')

.PHONY: setup run test frontend desktop headless dev vet gotest smoke package clean

setup:
	bash scripts/setup.sh

run:
	bash scripts/run.sh

test:
	bash scripts/test.sh

frontend:
	cd frontend && npm run build

desktop: frontend
	CGO_ENABLED=1 go build -tags $(GO_TAGS_DESKTOP) -ldflags "-w -s $(STAMP)" -o build/bin/meith .

headless:
	CGO_ENABLED=0 go build -tags headless -ldflags "$(STAMP)" -o build/bin/meith-headless .

# A binary that serves the UI to a browser at 127.0.0.1:34115 (needs an X display).
dev: frontend
	go build -tags dev,webkit2_41 -ldflags "$(STAMP)" -o build/bin/meith-dev .

vet:
	go vet -tags webkit2_41 ./...

gotest:
	go test -race -count=1 -tags webkit2_41 ./...

smoke: desktop headless
	bash scripts/smoke-headless.sh build/bin/meith-headless
	xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash scripts/smoke-desktop.sh build/bin/meith

# build/dist/meith_<version>_<arch>.deb (scripts/package.sh).
package:
	bash scripts/package.sh

clean:
	rm -rf build/bin
	find frontend/dist -mindepth 1 ! -name .keep -exec rm -rf {} +
