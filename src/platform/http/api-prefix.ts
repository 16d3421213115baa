// Where every operation of the API lives (spec: Endpoints). The composition root mounts each module's
// routes under it; the modules' routes never name it, so a new version is one place.
export const API_PREFIX = '/vet-provider/v1'
